# Params of the wrong type are refused with InvalidParams naming the field.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
--> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.cpp"},"position":{"line":"three","character":0}}}
<-- {"id":2,"error":{"code":-32602,"message":"@contains:position.line"}}
--> {"jsonrpc":"2.0","id":3,"method":"textDocument/codeAction","params":{"textDocument":{"uri":42},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}}
<-- {"id":3,"error":{"code":-32602,"message":"@contains:textDocument.uri"}}
--> {"jsonrpc":"2.0","id":4,"method":"hlsched/schedule","params":{}}
<-- {"id":4,"error":{"code":-32602,"message":"@contains:uri"}}
--> {"jsonrpc":"2.0","id":5,"method":"hlsched/schedule","params":{"uri":17}}
<-- {"id":5,"error":{"code":-32602,"message":"@contains:expected string"}}
--> {"jsonrpc":"2.0","id":6,"method":"hlsched/stageCosts","params":{"path":"/no/such/file.cpp"}}
<-- {"id":6,"error":{"code":-32602,"message":"@contains:no such file"}}
--> {"jsonrpc":"2.0","id":7,"method":"hlsched/schedule","params":{"path":"/no/such/file.cpp","settings":{"beam_size":"big"}}}
<-- {"id":7,"error":{"code":-32602,"message":"@contains:settings.beam_size"}}
--> {"jsonrpc":"2.0","id":8,"method":"workspace/executeCommand","params":{"command":"hlsched.explain","arguments":[]}}
<-- {"id":8,"error":{"code":-32602}}
--> {"jsonrpc":"2.0","id":20,"method":"workspace/executeCommand","params":{"command":"hlsched.noSuchCommand","arguments":["file:///x.cpp"]}}
<-- {"id":20,"error":{"code":-32602,"message":"unknown command: hlsched.noSuchCommand"}}
--> {"jsonrpc":"2.0","id":21,"method":"hlsched/schedule","params":{"path":"/no/such/file.cpp","settings":3}}
<-- {"id":21,"error":{"code":-32602,"message":"invalid params: settings: expected object, got number"}}
--> {"jsonrpc":"2.0","id":22,"method":"hlsched/schedule","params":{"uri":"file:///x.cpp","allowStale":"yes"}}
<-- {"id":22,"error":{"code":-32602,"message":"@contains:allowStale"}}
--> {"jsonrpc":"2.0","id":23,"method":"hlsched/explain","params":{"uri":"file:///x.cpp","func":5}}
<-- {"id":23,"error":{"code":-32602,"message":"@contains:func: expected string"}}
# A folder is not a generator (it would read as an empty source).
--> {"jsonrpc":"2.0","id":24,"method":"hlsched/stageCosts","params":{"uri":"@uri:tests/data"}}
<-- {"id":24,"error":{"code":-32602,"message":"@contains:not a file"}}
# A bad notification is dropped (it cannot be answered); a bad configuration is reported.
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.cpp"}}}
--> {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"hlsched":{"gpu_profile":"tpu9"}}}}
<-- {"method":"window/showMessage","params":{"type":1,"message":"@contains:gpu_profile"}}
--> {"jsonrpc":"2.0","id":9,"method":"shutdown"}
<-- {"id":9,"result":null}
