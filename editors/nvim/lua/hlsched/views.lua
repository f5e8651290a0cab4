-- Text views of the server's answers: the per-stage cost table (:HlschedCosts) and the suggested
-- schedule (:HlschedSchedule). Pure functions from decoded JSON to lines, plus a scratch split.
local M = {}

local function ms(value)
  if type(value) ~= 'number' then return '-' end
  if value >= 100 then return string.format('%.0f ms', value) end
  if value >= 1 then return string.format('%.2f ms', value) end
  return string.format('%.1f us', value * 1000)
end
M.format_ms = ms

local function pad(text, width)
  text = tostring(text)
  return text .. string.rep(' ', width - vim.fn.strdisplaywidth(text))
end

-- The cost terms of a stage, largest first: "global_memory 0.10, compute 0.02".
local function terms_text(terms)
  local list = {}
  for name, value in pairs(terms or {}) do
    if type(value) == 'number' and value > 0 then table.insert(list, { name = name, value = value }) end
  end
  table.sort(list, function(a, b) return a.value > b.value end)
  local parts = {}
  for _, t in ipairs(list) do table.insert(parts, string.format('%s %s', t.name, ms(t.value))) end
  return table.concat(parts, ', ')
end

--- Lines of the per-stage table for an hlsched/stageCosts result.
function M.costs_lines(result)
  local total = result.predicted_runtime_ms or 0
  local lines = {
    string.format('hlsched: %s predicted for %s on %s', ms(total), result.generator or '?', result.gpu_profile or '?'),
    '',
  }
  local header = { 'Func', 'stage', 'placement', 'predicted', 'share', 'bound', 'cost terms' }
  local rows = {}
  for _, s in ipairs(result.stages or {}) do
    local share = total > 0 and string.format('%d%%', math.floor(100 * (s.predicted_ms or 0) / total + 0.5)) or '-'
    table.insert(rows, { s.func or '?', tostring(s.stage or 0), s.placement or '', ms(s.predicted_ms), share,
                         s.bound or '', terms_text(s.terms) })
  end
  local widths = {}
  for i, h in ipairs(header) do widths[i] = vim.fn.strdisplaywidth(h) end
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do widths[i] = math.max(widths[i], vim.fn.strdisplaywidth(cell)) end
  end
  local function line(cells)
    local out = {}
    for i, cell in ipairs(cells) do out[i] = i < #cells and pad(cell, widths[i]) or cell end
    return (table.concat(out, ' | '):gsub('%s+$', ''))
  end
  table.insert(lines, line(header))
  local rule = {}
  for i = 1, #header do rule[i] = string.rep('-', widths[i]) end
  table.insert(lines, table.concat(rule, '-|-'))
  for _, row in ipairs(rows) do table.insert(lines, line(row)) end
  if result.stale then table.insert(lines, '(stale: the buffer changed since this analysis)') end
  return lines
end

--- Lines of the suggested schedule (hlsched/schedule result): the body of schedule().
function M.schedule_lines(result)
  local lines = { string.format('// hlsched: %s predicted on %s; paste into schedule()',
                                ms(result.predicted_runtime_ms), result.gpu_profile or '?') }
  for _, l in ipairs(vim.split(result.schedule_code or '', '\n', { plain = true })) do table.insert(lines, l) end
  return lines
end

--- Shows `lines` in a scratch buffer named `name` in a split (reused when already shown).
--- Returns the buffer number.
function M.show_in_split(name, lines, filetype)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  if filetype then vim.api.nvim_buf_set_option(buf, 'filetype', filetype) end
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd('wincmd p')
  end
  return buf
end

return M
