-- hlsched for Neovim 0.7+: attaches the hlsched language server to Halide generator buffers.
--
--   require('hlsched').setup({
--     cmd = { 'hlsched', 'serve' },               -- how to start the server (stdio)
--     settings = { gpu_profile = 'a100', time_budget_s = 4 },  -- the server's setting names
--     -- or a shared daemon (`hlsched serve --listen HOST:PORT --token T`):
--     -- connect = { host = '127.0.0.1', port = 7777, token = 'T' },
--   })
--
-- Hover (vim.lsp.buf.hover) and code actions (vim.lsp.buf.code_action) come from the server;
-- this module adds :HlschedSchedule, :HlschedCosts, :HlschedApply and per-Func predicted
-- times as virtual text. Uses only 0.7 APIs (vim.lsp.start_client + buf_attach_client).
local views = require('hlsched.views')

local M = {}

local defaults = {
  cmd = { 'hlsched', 'serve' },
  settings = {},
  connect = nil,       -- { host =, port =, token = }
  filetypes = { 'cpp' },
  virtual_text = true,
  -- A buffer is a generator when one of its first lines matches one of these (Lua patterns).
  markers = { 'Halide%.h', 'Generator%s*<', 'HALIDE_REGISTER_GENERATOR' },
  scan_lines = 400,
}

local config = vim.deepcopy(defaults)
local client_id = nil
local namespace = vim.api.nvim_create_namespace('hlsched')

-- Per buffer: the last hlsched/analysisFinished params, and the virtual text shown.
M.state = { analysis = {}, virtual_text = {} }

local function notify_user(message, level)
  vim.schedule(function() vim.notify('hlsched: ' .. message, level or vim.log.levels.INFO) end)
end

local function client()
  return client_id and vim.lsp.get_client_by_id(client_id) or nil
end

-- The buffer a function was given: nil and 0 mean the current one, as in Neovim's own API.
local function resolve_buf(bufnr)
  return (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
end

--- True when the buffer's text looks like a Halide generator.
function M.is_generator(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, config.scan_lines, false)
  for _, line in ipairs(lines) do
    for _, marker in ipairs(config.markers) do
      if line:find(marker) then return true end
    end
  end
  return false
end

-- ---- Virtual text: the server's code lenses (per-Func predicted times) at the end of lines ----

local function show_virtual_text(bufnr, lenses)
  if not vim.api.nvim_buf_is_valid(bufnr) then return end
  vim.api.nvim_buf_clear_namespace(bufnr, namespace, 0, -1)
  local by_line, shown = {}, {}
  for _, lens in ipairs(lenses or {}) do
    local command = lens.command
    -- "Apply suggested schedule" is an action, not information: :HlschedApply does it.
    if command and command.command ~= 'hlsched.applySuggestedSchedule' then
      local line = lens.range.start.line
      by_line[line] = by_line[line] and (by_line[line] .. '  ' .. command.title) or command.title
    end
  end
  for line, text in pairs(by_line) do
    if line < vim.api.nvim_buf_line_count(bufnr) then
      vim.api.nvim_buf_set_extmark(bufnr, namespace, line, 0,
        { virt_text = { { '  ' .. text, 'Comment' } }, virt_text_pos = 'eol' })
      shown[line] = text
    end
  end
  M.state.virtual_text[bufnr] = shown
end

function M.refresh_virtual_text(bufnr, on_done)
  local c = client()
  if not (c and config.virtual_text and vim.api.nvim_buf_is_valid(bufnr)) then return end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
  c.request('textDocument/codeLens', params, function(err, lenses)
    if not err then show_virtual_text(bufnr, lenses) end
    if on_done then on_done(err) end
  end, bufnr)
end

local function refresh_all_virtual_text()
  if not client() then return end
  for _, bufnr in ipairs(vim.lsp.get_buffers_by_client_id(client_id)) do M.refresh_virtual_text(bufnr) end
end

-- ---- Server notifications and requests ----

local handlers = {}

-- After every analysis (hlsched's own notification): remember it, redraw the times, and let
-- users (and tests) react through `User HlschedAnalysisFinished`.
handlers['hlsched/analysisFinished'] = function(_, params)
  local bufnr = vim.uri_to_bufnr(params.uri)
  M.state.analysis[bufnr] = params
  if params.status ~= 'ok' and params.status ~= 'cancelled' and params.current then
    notify_user((params.message or params.status), vim.log.levels.WARN)
  end
  vim.schedule(function()
    M.refresh_virtual_text(bufnr)
    vim.cmd('doautocmd <nomodeline> User HlschedAnalysisFinished')
  end)
end

-- The server asks for fresh lenses when an analysis or index lands: our virtual text.
handlers['workspace/codeLens/refresh'] = function()
  vim.schedule(refresh_all_virtual_text)
  return vim.NIL
end

-- ---- Starting and attaching ----

local function server_cmd()
  if not config.connect then return config.cmd end
  local c = config.connect
  if vim.lsp.rpc.connect then return vim.lsp.rpc.connect(c.host or '127.0.0.1', c.port) end  -- 0.8+
  -- 0.7 starts servers only as processes: `hlsched rpc --relay` carries stdio to the daemon.
  return { config.cmd[1], 'rpc', '--connect', (c.host or '127.0.0.1') .. ':' .. tostring(c.port), '--relay' }
end

local function init_options()
  local options = vim.deepcopy(config.settings or {})
  if config.connect and config.connect.token then options.token = config.connect.token end
  return options
end

-- Neovim's own capabilities, plus: we handle workspace/codeLens/refresh (the server then tells us
-- when lenses change because an analysis or the source index landed; 0.7 does not say so itself).
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.codeLens = { refreshSupport = true }
  return caps
end

local function start()
  if client() then return client_id end
  client_id = vim.lsp.start_client({
    name = 'hlsched',
    cmd = server_cmd(),
    root_dir = vim.fn.getcwd(),
    capabilities = capabilities(),
    init_options = init_options(),
    handlers = handlers,
    on_exit = function(code)
      client_id = nil
      if code ~= 0 then notify_user('the server exited with code ' .. tostring(code), vim.log.levels.WARN) end
    end,
  })
  if not client_id then notify_user('could not start ' .. vim.inspect(server_cmd()), vim.log.levels.ERROR) end
  return client_id
end

--- Attaches the server to `bufnr` (the current buffer by default), starting it if needed.
function M.attach(bufnr)
  bufnr = resolve_buf(bufnr)
  local id = start()
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

function M.client_id() return client_id end

-- ---- Commands ----

local function request(method, params, bufnr, on_result)
  local c = client()
  if not c then
    notify_user('no server: open a Halide generator first', vim.log.levels.WARN)
    return
  end
  c.request(method, params, function(err, result)
    if err then
      notify_user(method .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      on_result(nil, err)
    else
      on_result(result)
    end
  end, bufnr)
end

-- Asks the server for one of its views of the buffer (the last result, even if an edit is still
-- being analyzed) and shows it in a split named `name`. `on_done(buf, err)` after it is shown.
local function show_view(method, name, lines_of, filetype, bufnr, on_done)
  bufnr = resolve_buf(bufnr)
  request(method, { uri = vim.uri_from_bufnr(bufnr), allowStale = true }, bufnr, function(result, err)
    local shown = result and views.show_in_split(name, lines_of(result), filetype)
    if on_done then on_done(shown, err) end
  end)
end

--- :HlschedCosts - the per-stage cost table in a split.
function M.show_costs(bufnr, on_done)
  show_view('hlsched/stageCosts', 'hlsched://costs', views.costs_lines, 'hlschedcosts', bufnr, on_done)
end

--- :HlschedSchedule - the suggested schedule in a split.
function M.show_schedule(bufnr, on_done)
  show_view('hlsched/schedule', 'hlsched://schedule', views.schedule_lines, 'cpp', bufnr, on_done)
end

--- :HlschedApply - applies the preferred code action (insert or replace the schedule). With the
--- cursor in a branch of an `if` on a GeneratorParam, that is "Replace schedule in this branch".
function M.apply_suggestion(bufnr, on_done)
  bufnr = resolve_buf(bufnr)
  local range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }
  if bufnr == vim.api.nvim_get_current_buf() then range = vim.lsp.util.make_range_params().range end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = range,
    context = { diagnostics = {} },
  }
  request('textDocument/codeAction', params, bufnr, function(actions, err)
    local chosen = nil
    for _, action in ipairs(actions or {}) do
      if action.isPreferred or not chosen then chosen = action end
    end
    if chosen and chosen.edit then
      vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
    elseif not err then
      notify_user('no suggestion yet (the analysis is still running)', vim.log.levels.WARN)
    end
    if on_done then on_done(chosen, err) end
  end)
end

--- Sends new settings to the running server (workspace/didChangeConfiguration).
function M.configure(settings)
  config.settings = vim.tbl_extend('force', config.settings or {}, settings or {})
  local c = client()
  if c then c.notify('workspace/didChangeConfiguration', { settings = { hlsched = config.settings } }) end
end

--- The last analysis of `bufnr` for a statusline: "hlsched: 0.12 ms" or its status.
function M.status(bufnr)
  local a = M.state.analysis[resolve_buf(bufnr)]
  if not a then return '' end
  if a.status == 'ok' then return 'hlsched: ' .. views.format_ms(a.predicted_runtime_ms) end
  return 'hlsched: ' .. a.status
end

local function define_commands()
  vim.api.nvim_create_user_command('HlschedCosts', function() M.show_costs(0) end, { desc = 'hlsched: per-stage costs' })
  vim.api.nvim_create_user_command('HlschedSchedule', function() M.show_schedule(0) end,
    { desc = 'hlsched: the suggested schedule in a split' })
  vim.api.nvim_create_user_command('HlschedApply', function() M.apply_suggestion(0) end,
    { desc = 'hlsched: insert or replace the schedule with the suggestion' })
end

function M.setup(user_config)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), user_config or {})
  if user_config and user_config.settings then config.settings = user_config.settings end  -- replace, not merge
  define_commands()
  local group = vim.api.nvim_create_augroup('hlsched', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      if M.is_generator(args.buf) then M.attach(args.buf) end
    end,
  })
end

return M
