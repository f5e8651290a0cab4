# Crashes, hangs and compile errors of the user's generator become diagnostics; the server
# stays up and answers.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}
<-- {"id":1,"result":"@any"}
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/crash.cpp","languageId":"cpp","version":1,"text":"// FAKE_CRASH\nstruct Gen {};\n"}}}
<-- {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/crash.cpp","version":1,"diagnostics":[{"severity":1,"code":"crash","source":"hlsched","message":"@contains:SIGSEGV"}]}}
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/hang.cpp","languageId":"cpp","version":1,"text":"// FAKE_HANG\n"}}}
<-- {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/hang.cpp","diagnostics":[{"code":"timeout","message":"@contains:did not finish"}]}}
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/broken.cpp","languageId":"cpp","version":4,"text":"int a;\n\n #error here\n"}}}
<-- {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/broken.cpp","version":4,"diagnostics":[{"range":{"start":{"line":2,"character":1}},"severity":1,"code":"compile_error","message":"#error in the document"}]}}
--> {"jsonrpc":"2.0","id":2,"method":"hlsched/schedule","params":{"uri":"file:///tmp/broken.cpp"}}
<-- {"id":2,"error":{"code":-32803,"message":"does not compile","data":{"kind":"compile_error","diagnostics":[{"line":3}]}}}
# Fixing the text clears the diagnostics.
--> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/broken.cpp","version":5},"contentChanges":[{"text":"int a;\n"}]}}
<-- {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/broken.cpp","version":5,"diagnostics":[]}}
# An edit the server cannot apply (start after end) is reported; the document stays as it was.
--> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/broken.cpp","version":6},"contentChanges":[{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":1}},"text":"x"}]}}
<-- {"method":"window/showMessage","params":{"type":1,"message":"@contains:contentChanges[0].range"}}
--> {"jsonrpc":"2.0","id":3,"method":"hlsched/documentStatus","params":{"uri":"file:///tmp/broken.cpp"}}
<-- {"id":3,"result":{"version":5}}
--> {"jsonrpc":"2.0","id":4,"method":"shutdown"}
<-- {"id":4,"result":null}
