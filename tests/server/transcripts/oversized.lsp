!max-message-bytes 1024
# A message over the limit is refused with an error (id null) and skipped without being
# buffered; the session goes on.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
--> raw Content-Length: 5000\r\n\r\n
<-- {"id":null,"error":{"code":-32600,"message":"@contains:exceeds the limit of 1024"}}
--> filler 5000
--> {"jsonrpc":"2.0","id":2,"method":"shutdown"}
<-- {"id":2,"result":null}
--> {"jsonrpc":"2.0","method":"exit"}
== exit 0
