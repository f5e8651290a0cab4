-- End-to-end test of editors/nvim in a real (headless) Neovim against the real daemon. Run by
-- nvim_e2e.sh, which passes through the environment:
--   HLSCHED_BINARY  the hlsched executable      HLSCHED_TEST_FILE  a copy of examples/blur
--   HLSCHED_CACHE   the daemon's build cache    HLSCHED_OUT        where to write views (README)
--   HLSCHED_CONNECT HOST:PORT of a shared daemon and HLSCHED_TEST_TOKEN its token (TCP mode)
-- Every wait is for an event with a generous limit (a cold Halide.h build takes minutes); any
-- mismatch exits non-zero with a message on stderr.
local env = vim.env
local timeout_ms = 600000

local function fail(message)
  io.stderr:write('nvim e2e FAIL: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local function check(condition, message)
  if not condition then fail(message) end
end

local function wait_for(what, predicate, limit_ms)
  if not vim.wait(limit_ms or timeout_ms, predicate, 50) then fail('timed out waiting for ' .. what) end
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

local function write_lines(name, lines)
  if not env.HLSCHED_OUT or env.HLSCHED_OUT == '' then return end
  vim.fn.writefile(lines, env.HLSCHED_OUT .. '/' .. name)
end

local function run()
  local hlsched = require('hlsched')
  local connect = nil
  if env.HLSCHED_CONNECT and env.HLSCHED_CONNECT ~= '' then
    local host, port = env.HLSCHED_CONNECT:match('^(.*):(%d+)$')
    connect = { host = host, port = tonumber(port), token = env.HLSCHED_TEST_TOKEN }
  end
  hlsched.setup({
    cmd = { env.HLSCHED_BINARY, 'serve', '--cache-dir', env.HLSCHED_CACHE },
    settings = { time_budget_s = 2 },
    connect = connect,
  })
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(env.HLSCHED_TEST_FILE))
  local buf = vim.api.nvim_get_current_buf()
  check(hlsched.client_id() ~= nil, 'the plugin did not attach to a Halide generator buffer')

  -- 1. The first analysis.
  wait_for('the first analysis', function()
    local a = hlsched.state.analysis[buf]
    return a ~= nil and a.status ~= 'cancelled'
  end)
  local first = hlsched.state.analysis[buf]
  check(first.status == 'ok', 'analysis failed: ' .. vim.inspect(first))
  check(first.predicted_runtime_ms > 0, 'no predicted runtime: ' .. vim.inspect(first))
  check(hlsched.status(buf):find('^hlsched: ') ~= nil, 'status line: ' .. hlsched.status(buf))

  -- Hover needs the source index too; it has no notification, so ask until it is current.
  wait_for('the source index', function()
    local replies = vim.lsp.buf_request_sync(buf, 'hlsched/documentStatus', { uri = vim.uri_from_bufnr(buf) }, 10000)
    for _, r in pairs(replies or {}) do
      if r.result and type(r.result.index) == 'table' and r.result.index.current then return true end
    end
    return false
  end, 120000)

  -- 2. Hover blur_x and output (lines 17 and 18 of blur_generator.cpp: "        blur_x(x, y) = ...").
  local function hover_at(line)
    local replies = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
      { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = 10 } }, 30000)
    for _, r in pairs(replies or {}) do
      if r.result and r.result.contents then return r.result.contents.value or '' end
    end
    return ''
  end
  local on_blur_x = hover_at(16)
  check(on_blur_x:find('**blur_x**', 1, true) ~= nil, 'hover on blur_x: ' .. on_blur_x)
  -- What the search decided for it: directives of its own, or inlined into its consumer's kernel.
  check(on_blur_x:find('Suggested schedule:', 1, true) ~= nil or on_blur_x:find('inlined into output', 1, true) ~= nil,
    'hover on blur_x has no schedule: ' .. on_blur_x)
  local on_output = hover_at(17)
  check(on_output:find('**output** — predicted', 1, true) ~= nil, 'hover on output: ' .. on_output)
  write_lines('nvim_hover_output.md', vim.split(on_output, '\n', { plain = true }))

  -- 3. Virtual text: the generator's predicted time on its class line (line 8).
  wait_for('virtual text', function()
    local shown = hlsched.state.virtual_text[buf] or {}
    return shown[7] ~= nil
  end, 60000)
  check(hlsched.state.virtual_text[buf][7]:find('predicted on h200', 1, true) ~= nil,
    'virtual text on the generator: ' .. vim.inspect(hlsched.state.virtual_text[buf]))

  -- 4. :HlschedCosts shows a table with a row per stage.
  vim.cmd('HlschedCosts')
  wait_for(':HlschedCosts', function()
    local b = vim.fn.bufnr('hlsched://costs')
    return b ~= -1 and vim.api.nvim_buf_line_count(b) > 4
  end, 60000)
  local costs = vim.api.nvim_buf_get_lines(vim.fn.bufnr('hlsched://costs'), 0, -1, false)
  check(costs[3]:find('^Func') ~= nil, 'costs header: ' .. vim.inspect(costs))
  check(buffer_text(vim.fn.bufnr('hlsched://costs')):find('\noutput +| 0 +| ') ~= nil, 'no row for output: ' .. vim.inspect(costs))
  check(costs[1]:find('predicted for blur on h200', 1, true) ~= nil, 'costs title: ' .. costs[1])
  write_lines('nvim_costs.txt', costs)

  -- 5a. With the cursor in the branch of `if (schedule_kind.value() == "manual")` (a GeneratorParam),
  -- :HlschedApply replaces that branch only; undone, the buffer is as it was.
  local before = buffer_text(buf)
  vim.fn.win_gotoid(vim.fn.bufwinid(buf))
  local unroll_line = vim.fn.search('.unroll(yii)', 'nw')
  check(unroll_line > 0, 'no manual schedule in the buffer')
  vim.api.nvim_win_set_cursor(0, { unroll_line, 12 })
  local in_branch = nil
  hlsched.apply_suggestion(buf, function(action, err) in_branch = { action = action, err = err } end)
  wait_for('the code action in the branch', function() return in_branch ~= nil end, 60000)
  check(in_branch.err == nil and in_branch.action ~= nil, 'code action in the branch: ' .. vim.inspect(in_branch))
  check(in_branch.action.title == 'Replace schedule in this branch', 'in the branch: ' .. tostring(in_branch.action.title))
  local replaced = buffer_text(buf)
  check(replaced:find('if (schedule_kind.value() == "manual") {', 1, true) ~= nil, 'the branch is gone: ' .. replaced)
  check(replaced:find('xi, yi, 32, 16, TailStrategy', 1, true) == nil, 'the manual directives stayed: ' .. replaced)
  vim.cmd('silent undo')
  check(buffer_text(buf) == before, 'undo did not restore the buffer')
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  -- The undo is a new version: wait until the server offers actions for it again.
  wait_for('code actions after the undo', function()
    local replies = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
      textDocument = { uri = vim.uri_from_bufnr(buf) },
      range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
      context = { diagnostics = {} },
    }, 30000)
    for _, r in pairs(replies or {}) do
      if r.result and #r.result > 0 then return true end
    end
    return false
  end, 120000)

  -- 5. :HlschedSchedule shows the suggestion; :HlschedApply puts it into the buffer.
  vim.cmd('HlschedSchedule')
  wait_for(':HlschedSchedule', function() return vim.fn.bufnr('hlsched://schedule') ~= -1 end, 60000)
  local suggestion = vim.api.nvim_buf_get_lines(vim.fn.bufnr('hlsched://schedule'), 1, -1, false)
  check(#suggestion > 0 and buffer_text(vim.fn.bufnr('hlsched://schedule')):find('output', 1, true) ~= nil,
    'schedule view: ' .. vim.inspect(suggestion))
  local applied = nil
  hlsched.apply_suggestion(buf, function(action, err) applied = { action = action, err = err } end)
  wait_for('the code action', function() return applied ~= nil end, 60000)
  check(applied.err == nil and applied.action ~= nil, 'code action: ' .. vim.inspect(applied))
  check(applied.action.title == 'Replace schedule', 'preferred action: ' .. tostring(applied.action.title))
  local text = buffer_text(buf)
  check(text:find('schedule_kind.value() == "manual"', 1, true) == nil, 'the manual schedule is still there')
  for _, line in ipairs(suggestion) do
    local code = vim.trim(line)
    if code ~= '' then check(text:find(code, 1, true) ~= nil, 'suggested line not inserted: ' .. code) end
  end
  write_lines('nvim_buffer_after_apply.cpp', vim.api.nvim_buf_get_lines(buf, 0, -1, false))

  -- 6. The edited buffer is analyzed again (the pasted schedule keeps the generator valid).
  local version = vim.lsp.util.buf_versions[buf]
  wait_for('the analysis of the edited buffer', function()
    local a = hlsched.state.analysis[buf]
    return a ~= nil and a.version == version and a.status ~= 'cancelled'
  end)
  check(hlsched.state.analysis[buf].status == 'ok', 'edited buffer: ' .. vim.inspect(hlsched.state.analysis[buf]))

  io.stdout:write('nvim e2e: ok (' .. (connect and 'tcp' or 'stdio') .. ')\n')
  vim.cmd('qall!')
end

local ok, err = xpcall(run, debug.traceback)
if not ok then fail(tostring(err)) end
