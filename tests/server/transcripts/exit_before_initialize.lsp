# exit is accepted even before initialize (and without shutdown: code 1).
--> {"jsonrpc":"2.0","method":"exit"}
== exit 1
