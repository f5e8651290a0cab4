# "params": null means no params (clients send it for shutdown and exit): methods whose params
# are optional accept it, those that need params answer InvalidParams, and params that are not
# structured (a number, a string) are an Invalid Request.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
--> {"jsonrpc":"2.0","method":"initialized","params":null}
--> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":null}
<-- {"id":2,"error":{"code":-32602,"message":"@contains:expected object, got null"}}
--> {"jsonrpc":"2.0","id":3,"method":"hlsched/schedule","params":null}
<-- {"id":3,"error":{"code":-32602}}
--> {"jsonrpc":"2.0","id":4,"method":"shutdown","params":7}
<-- {"id":4,"error":{"code":-32600,"message":"@contains:params"}}
--> {"jsonrpc":"2.0","id":5,"method":"shutdown","params":"now"}
<-- {"id":5,"error":{"code":-32600,"message":"@contains:params"}}
--> {"jsonrpc":"2.0","id":6,"method":"shutdown","params":null}
<-- {"id":6,"result":null}
--> {"jsonrpc":"2.0","method":"exit","params":null}
== exit 0
