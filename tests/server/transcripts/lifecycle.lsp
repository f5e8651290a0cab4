# The LSP lifecycle: nothing before initialize, honest capabilities, shutdown, then exit (code 0).
--> {"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.cpp"},"position":{"line":0,"character":0}}}
<-- {"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"@contains:send initialize first"}}
# Notifications before initialize are dropped silently.
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.cpp","languageId":"cpp","version":1,"text":"int x;"}}}
== silent 100
--> {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":2,"result":{"capabilities":{"hoverProvider":true,"codeLensProvider":{"resolveProvider":false},"codeActionProvider":{"codeActionKinds":["refactor.rewrite"]},"textDocumentSync":{"openClose":true,"change":2},"executeCommandProvider":{"commands":["hlsched.explain","hlsched.applySuggestedSchedule"]},"experimental":{"hlsched":{"methods":["hlsched/schedule","hlsched/stageCosts","hlsched/explain","hlsched/documentStatus"]}}},"serverInfo":{"name":"hlsched"}}}
--> {"jsonrpc":"2.0","method":"initialized","params":{}}
--> {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":3,"error":{"code":-32600,"message":"initialize was already called"}}
# Unknown methods: requests get MethodNotFound, notifications nothing ($/ ones are optional anyway).
--> {"jsonrpc":"2.0","id":4,"method":"textDocument/rename","params":{}}
<-- {"id":4,"error":{"code":-32601}}
--> {"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[]}}
--> {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}
== silent 100
# Hover on a document that is not open: null, not an error.
--> {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere.cpp"},"position":{"line":0,"character":0}}}
<-- {"id":5,"result":null}
--> {"jsonrpc":"2.0","id":6,"method":"shutdown"}
<-- {"id":6,"result":null}
# After shutdown only exit is accepted.
--> {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.cpp"},"position":{"line":0,"character":0}}}
<-- {"id":7,"error":{"code":-32600,"message":"@contains:shutdown was requested"}}
--> {"jsonrpc":"2.0","method":"exit"}
== exit 0
