!index
# The editor features on the blur example, with a canned analysis (fake analyzer) and the real
# libclang index: hover, code actions, lenses, the hlsched/* methods, staleness, cancellation.
--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"window":{"workDoneProgress":true},"workspace":{"codeLens":{"refreshSupport":true}}}}}
<-- {"id":1,"result":"@any"}
--> {"jsonrpc":"2.0","method":"initialized","params":{}}
--> {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp","languageId":"cpp","version":1,"text":"@file:examples/blur/blur_generator.cpp"}}}
# Work-done progress: created, begun, reported, ended.
<-- {"method":"window/workDoneProgress/create","params":{"token":"@any"}}
<-- {"method":"$/progress","params":{"value":{"kind":"begin","title":"hlsched: blur_generator.cpp","message":"building the generator"}}}
<-- {"method":"$/progress","params":{"value":{"kind":"report","message":"searching for a schedule"}}}
<-- {"method":"$/progress","params":{"value":{"kind":"end","message":"predicted 0.0125 ms"}}}
<-- {"method":"hlsched/analysisFinished","params":{"uri":"@uri:examples/blur/blur_generator.cpp","version":1,"status":"ok","current":true,"predicted_runtime_ms":0.0125}}
# Lenses depend on the analysis: clients that support it are asked to fetch them again.
<-- {"method":"workspace/codeLens/refresh"}
--> poll {"jsonrpc":"2.0","method":"hlsched/documentStatus","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}} until {"index":{"current":true,"generators":["Blur"]},"analysis":{"current":true,"status":"ok"}}
# Hover on a Func (line 17: "blur_x(x, y) = ...") and on the class.
--> {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"position":{"line":16,"character":10}}}
<-- {"id":2,"result":{"contents":{"kind":"markdown","value":"@contains:**blur_x** — predicted **0.0075 ms**"},"range":{"start":{"line":16,"character":8},"end":{"line":16,"character":14}}}}
--> {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"position":{"line":7,"character":7}}}
<-- {"id":3,"result":{"contents":{"value":"@contains:predicted **0.0125 ms** on h200"}}}
# Code actions: replace the user's schedule (preferred) or append.
--> {"jsonrpc":"2.0","id":4,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"range":{"start":{"line":20,"character":0},"end":{"line":20,"character":0}},"context":{"diagnostics":[]}}}
<-- {"id":4,"result":[{"title":"Replace schedule","kind":"refactor.rewrite","isPreferred":true,"edit":{"changes":"@any"}},{"title":"Insert suggested schedule","isPreferred":false}]}
--> {"jsonrpc":"2.0","id":5,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"range":{"start":{"line":20,"character":0},"end":{"line":20,"character":0}},"context":{"diagnostics":[],"only":["quickfix"]}}}
<-- {"id":5,"result":[]}
--> {"jsonrpc":"2.0","id":6,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"}}}
<-- {"id":6,"result":[{"range":{"start":{"line":7}},"command":{"title":"hlsched: 0.0125 ms predicted on h200","command":"hlsched.explain"}},{"command":{"command":"hlsched.applySuggestedSchedule"}},{"command":{"title":"blur_x: 0.0075 ms (60% of the pipeline, memory-bound)"}},{"command":{"title":"output: 0.005 ms (40% of the pipeline, launch-bound)"}}]}
# Tools.
--> {"jsonrpc":"2.0","id":7,"method":"hlsched/stageCosts","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}}
<-- {"id":7,"result":{"version":1,"stale":false,"predicted_runtime_ms":0.0125,"stages":[{"func":"output"},{"func":"blur_x","bound":"memory"}]}}
--> {"jsonrpc":"2.0","id":8,"method":"hlsched/explain","params":{"uri":"@uri:examples/blur/blur_generator.cpp","func":"blur_x"}}
<-- {"id":8,"result":{"stages":[{"func":"blur_x","text":"@contains:memory-bound: DRAM traffic 0.006 ms (80%)"}]}}
--> {"jsonrpc":"2.0","id":9,"method":"hlsched/schedule","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}}
<-- {"id":9,"result":{"schedule_code":"@contains:blur_x.compute_root();","generator":"blur","build":"@any","stale":false}}
--> {"jsonrpc":"2.0","id":10,"method":"workspace/executeCommand","params":{"command":"hlsched.applySuggestedSchedule","arguments":["@uri:examples/blur/blur_generator.cpp"]}}
<-- {"method":"workspace/applyEdit","params":{"label":"hlsched: Replace schedule","edit":{"changes":"@any"}}}
<-- {"id":10,"result":{"applied":true}}
# An edit: the analysis of version 1 is stale now; hover still answers and says so.
--> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"// FAKE_SLOW\n"}]}}
--> {"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"position":{"line":17,"character":10}}}
<-- {"id":11,"result":{"contents":{"value":"@contains:from version 1 of this file"}}}
--> {"jsonrpc":"2.0","id":12,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"},"range":{"start":{"line":20,"character":0},"end":{"line":20,"character":0}},"context":{"diagnostics":[]}}}
<-- {"id":12,"result":[]}
# allowStale answers at once with the old analysis.
--> {"jsonrpc":"2.0","id":13,"method":"hlsched/stageCosts","params":{"uri":"@uri:examples/blur/blur_generator.cpp","allowStale":true}}
<-- {"id":13,"result":{"version":1,"stale":true}}
# A request waiting for the new analysis is failed with ContentModified by the next edit ...
--> {"jsonrpc":"2.0","id":14,"method":"hlsched/schedule","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}}
--> {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"\n"}]}}
<-- {"id":14,"error":{"code":-32801}}
# ... and one cancelled by the client gets RequestCancelled.
--> {"jsonrpc":"2.0","id":15,"method":"hlsched/schedule","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}}
--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":15}}
<-- {"id":15,"error":{"code":-32800}}
# The slow analysis of version 3 still finishes and is current.
<-- {"method":"hlsched/analysisFinished","params":{"version":3,"status":"ok","current":true}}
--> {"jsonrpc":"2.0","id":16,"method":"hlsched/schedule","params":{"uri":"@uri:examples/blur/blur_generator.cpp"}}
<-- {"id":16,"result":{"version":3,"stale":false}}
--> {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"@uri:examples/blur/blur_generator.cpp"}}}
<-- {"method":"textDocument/publishDiagnostics","params":{"uri":"@uri:examples/blur/blur_generator.cpp","diagnostics":[]}}
--> {"jsonrpc":"2.0","id":17,"method":"shutdown"}
<-- {"id":17,"result":null}
--> {"jsonrpc":"2.0","method":"exit"}
== exit 0
