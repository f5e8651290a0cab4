# initialize's processId names a process that does not exist: the session ends (code 1) within
# the watch interval, as LSP asks of servers whose parent died.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":2147483000,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
== silent 1000
== exit 1
