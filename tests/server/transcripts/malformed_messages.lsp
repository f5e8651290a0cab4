# Broken messages get the JSON-RPC error for their kind, with id null when the id is unknown,
# and the session goes on, except after a header that makes the stream unreadable.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
# Invalid JSON.
--> raw Content-Length: 12\r\n\r\n{"jsonrpc":2
<-- {"id":null,"error":{"code":-32700}}
# Valid JSON, not a message.
--> raw Content-Length: 2\r\n\r\n42
<-- {"id":null,"error":{"code":-32600}}
# A request without a method: its id is echoed.
--> {"jsonrpc":"2.0","id":9}
<-- {"id":9,"error":{"code":-32600}}
--> {"jsonrpc":"2.0","id":10,"method":"shutdown","params":7}
<-- {"id":10,"error":{"code":-32600,"message":"@contains:params"}}
# A header line without a colon, but a Content-Length: the frame is skipped, the stream continues.
--> raw Content-Length: 2\r\nGarbage\r\n\r\n{}
<-- {"id":null,"error":{"code":-32700,"message":"@contains:Garbage"}}
# A batch: one reply array, in order.
--> [{"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///none.cpp"},"position":{"line":0,"character":0}}},{"jsonrpc":"2.0","id":12,"method":"no/such/method"},{"jsonrpc":"2.0","method":"initialized","params":{}}]
<-- [{"id":11,"result":null},{"id":12,"error":{"code":-32601}}]
# No Content-Length at all: the stream cannot be trusted any more; the session ends.
--> raw Content-Type: application/vscode-jsonrpc\r\n\r\n{}
<-- {"id":null,"error":{"code":-32700,"message":"@contains:Content-Length"}}
== exit 1
