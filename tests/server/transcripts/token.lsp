!token s3cret
# With a token, initialize must present it; a wrong one fails and ends the session.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"token":"guess"}}}
<-- {"id":1,"error":{"code":-32803,"message":"@contains:authentication failed"}}
== exit 1
