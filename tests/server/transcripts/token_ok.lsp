!token s3cret
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":{"token":"s3cret","gpu_profile":"a100"}}}
<-- {"id":1,"result":{"capabilities":{"experimental":{"hlsched":{"settings":{"gpu_profile":"a100"}}}}}}
