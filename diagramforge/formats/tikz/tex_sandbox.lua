-- diagramforge: the Lua half of the TeX sandbox (luatex --lua=<this>). It runs before
-- luatex-core.lua, the format and any document code, so every later chunk — packages and
-- documents alike — sees only these wrappers; the originals stay in upvalues that no code
-- can reach once the debug library is gone.
--
-- Rules (the same as openin_any=p and Landlock give TeX itself):
--   read    inside the job directory and inside ROOTS (TeX Live's trees, fonts, caches)
--   write   inside the job directory only
--   run     nothing: no shell, no programs, no native libraries, no foreign bytecode
-- A document that reaches outside gets a Lua error naming what it tried ("diagramforge
-- sandbox: not reading from /etc/passwd"), which becomes its rejection reason. Packages
-- probing inside TeX's own trees (luaotfload updating its read-only caches, creating the
-- parents of its cache directory) are refused quietly, as a read-only disk would.
local ROOTS = {ROOTS}
local job = lfs.currentdir()
-- a trusted run (warming luaotfload's caches) may also write there; documents never set it
local WRITABLE = os.getenv("DIAGRAMFORGE_LUA_WRITABLE")
local texio, type, tostring, ipairs, error, pcall = texio, type, tostring, ipairs, error, pcall

local cwd = job -- follows lfs.chdir (luaotfload walks font trees that way)
local function norm(path)
  if type(path) ~= "string" or path == "" then return nil end
  if path:sub(1, 1) ~= "/" then path = cwd .. "/" .. path end
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then return nil end
    if part ~= "." then parts[#parts + 1] = part end
  end
  return "/" .. table.concat(parts, "/")
end
local function under(p, root)
  return p == root or p:sub(1, #root + 1) == root .. "/"
end
local function in_roots(path)
  local p = norm(path)
  if not p then return false end
  for _, r in ipairs(ROOTS) do if under(p, r) then return true end end
  return false
end
local function may_write(path)
  local p = norm(path)
  return p ~= nil and (under(p, job) or (WRITABLE ~= nil and under(p, WRITABLE)))
end
local function may_read(path)
  return may_write(path) or in_roots(path)
end
local function message(what, path)
  return "diagramforge sandbox: not " .. what .. " " .. tostring(path)
end
-- an attempt to reach outside: logged, and a Lua error the document cannot ignore
local function forbid(what, path)
  local msg = message(what, path)
  texio.write_nl("log", msg .. "\n")
  error(msg, 3)
end
-- a refusal inside TeX's trees: what a read-only file system would answer
local function refuse(what, path)
  if not in_roots(path) then forbid(what, path) end
  return nil, message(what, path)
end
local function is_write(mode) return type(mode) == "string" and mode:find("[wa+]") ~= nil end
local attributes = lfs.attributes
-- a file outside that does not exist is simply not there (fontconfig probes several places
-- for its configuration); one that exists is what a document must not reach
local function check_read(path)
  if may_read(path) then return true end
  local p = norm(path)
  if p and attributes(p) == nil then return false end
  forbid("reading from", path)
end

local open, lines, input, output = io.open, io.lines, io.input, io.output
io.open = function(path, mode)
  if is_write(mode) then
    if not may_write(path) then return refuse("writing to", path) end
  elseif not check_read(path) then
    return nil, tostring(path) .. ": No such file or directory"
  end
  return open(path, mode)
end
io.lines = function(path, ...)
  if path ~= nil then check_read(path) end
  return lines(path, ...)
end
io.input = function(f)
  if type(f) == "string" then check_read(f) end
  return input(f)
end
io.output = function(f)
  if type(f) == "string" and not may_write(f) then return refuse("writing to", f) end
  return output(f)
end
io.tmpfile = function() forbid("creating", "a temporary file") end

-- luaotfload asks the terminal's width (tput cols): answered "no terminal"
local HARMLESS = {["tput cols"] = true}
local function no_program(name)
  return function(cmd)
    if type(cmd) == "string" and HARMLESS[cmd] then return nil end
    forbid("running " .. name, cmd)
  end
end
io.popen = no_program("io.popen")
local remove, rename = os.remove, os.rename
for _, name in ipairs({"execute", "exec", "spawn", "kpsepopen", "tmpdir", "tmpname"}) do
  os[name] = no_program("os." .. name)
end
os.setenv = function() return nil end -- the environment was read at start; changes mean nothing
os.remove = function(p)
  if not may_write(p) then return refuse("removing", p) end
  return remove(p)
end
os.rename = function(a, b)
  if not may_write(a) then return refuse("renaming", a) end
  if not may_write(b) then return refuse("renaming to", b) end
  return rename(a, b)
end

-- bytecode can break out of the Lua VM: files from the job directory and strings load as
-- text, unless this process made the string with string.dump (lualibs compiles its
-- templates that way); TeX Live's own caches (written by a trusted run) may hold bytecode
local loadfile_, load_, dump_, dumped = loadfile, load, string.dump, {}
string.dump = function(f, strip)
  local s = dump_(f, strip)
  dumped[s] = true
  return s
end
loadfile = function(path, mode, env)
  if path ~= nil then check_read(path) end
  if path == nil or not in_roots(path) then mode = "t" end
  if env ~= nil then return loadfile_(path, mode, env) end
  return loadfile_(path, mode)
end
dofile = function(path)
  local f, err = loadfile(path)
  if not f then error(err, 2) end
  return f()
end
load = function(chunk, name, mode, env)
  if not (type(chunk) == "string" and dumped[chunk]) then mode = "t" end
  if env ~= nil then return load_(chunk, name, mode, env) end
  return load_(chunk, name, mode)
end
loadstring = load
-- native code: luatex-core.lua (run right after this script) empties ffi, package.loadlib
-- and the C searchers whenever shell escape is off, which it always is here
package.cpath = ""

for _, name in ipairs({"link", "lock", "lock_dir", "unlock", "touch", "setmode"}) do
  if lfs[name] then lfs[name] = function(p) forbid("lfs." .. name, p) end end
end
local chdir = lfs.chdir
lfs.chdir = function(p)
  local target = norm(p)
  if not (target and may_read(target)) then forbid("changing to", p) end
  local ok, err = chdir(target)
  if ok then cwd = target end
  return ok, err
end
local function isdir(p) return attributes(p, "mode") == "directory" end
for _, name in ipairs({"mkdir", "rmdir"}) do
  local f = lfs[name]
  if f then
    lfs[name] = function(p)
      if may_write(p) then return f(p) end
      if name == "mkdir" and isdir(p) then return nil, "File exists" end
      return refuse(name, p)
    end
  end
end
-- metadata (lfs.attributes, lfs.isdir…) stays open: it reads no content, and cache code
-- walks the parents of its directories with it. Listing a directory outside is forbidden.
local dir = lfs.dir
lfs.dir = function(p) check_read(p) return dir(p) end

local function guard_path_arg(lib, name)
  local f = lib and lib[name]
  if f then
    lib[name] = function(p, ...)
      if type(p) == "string" then check_read(p) end
      return f(p, ...)
    end
  end
end
guard_path_arg(fontloader, "open"); guard_path_arg(fontloader, "info")
guard_path_arg(pdfe, "open"); guard_path_arg(zip, "open"); guard_path_arg(gzip, "open")
guard_path_arg(font, "read_tfm"); guard_path_arg(font, "read_vf")

if img then
  for _, name in ipairs({"new", "scan", "write", "immediatewrite", "node",
                         "immediatewriteobject", "copy"}) do
    local f = img[name]
    if f then
      img[name] = function(t, ...)
        local ok, fname = pcall(function() return t and t.filename end)
        if ok and type(fname) == "string" then check_read(fname) end
        return f(t, ...)
      end
    end
  end
end

if pdf then
  for _, name in ipairs({"obj", "immediateobj"}) do
    local f = pdf[name]
    if f then
      pdf[name] = function(...)
        local args = {...}
        for k, v in ipairs(args) do
          if v == "file" or v == "streamfile" then check_read(args[k + 1]) end
          if type(v) == "table" and v.file then check_read(v.file) end
        end
        return f(...)
      end
    end
  end
end

if mplib then
  local new = mplib.new
  mplib.new = function(t)
    t = t or {}
    local find = t.find_file or function(name) return name end
    t.find_file = function(name, mode, ftype)
      local found = find(name, mode, ftype)
      if found == nil then return nil end
      if is_write(mode) then
        if not may_write(found) then return refuse("writing to", found) end
      else
        check_read(found)
      end
      return found
    end
    return new(t)
  end
end

-- a find_*_file callback names the file the engine then opens itself: checked here
local register = callback.register
callback.register = function(name, f)
  if type(f) == "function" and type(name) == "string" and name:match("^find_.*_file$") then
    local writes = name == "find_write_file" or name == "find_output_file"
    local g = f
    f = function(...)
      local found = g(...)
      if type(found) == "string" then
        if writes and not may_write(found) then return refuse("writing to", found) end
        if not writes then check_read(found) end
      end
      return found
    end
  end
  return register(name, f)
end

-- the debug library stays (lua-ul finds ltluatex's callback.define through
-- debug.getupvalue), but not for the functions of this script: their upvalues hold the
-- originals and the rules, and no document may read or change them
local getinfo, SELF = debug.getinfo, debug.getinfo(1, "S").source
local function ours(f)
  return type(f) == "function" and getinfo(f, "S").source == SELF
end
local function guard_function_arg(name)
  local f = debug[name]
  if f then
    debug[name] = function(fn, ...)
      if ours(fn) then forbid("debug." .. name .. " of", "the sandbox") end
      return f(fn, ...)
    end
  end
end
for _, name in ipairs({"getupvalue", "setupvalue", "upvalueid"}) do guard_function_arg(name) end
local upvaluejoin = debug.upvaluejoin
debug.upvaluejoin = function(f1, n1, f2, n2)
  if ours(f1) or ours(f2) then forbid("debug.upvaluejoin of", "the sandbox") end
  return upvaluejoin(f1, n1, f2, n2)
end
for _, name in ipairs({"getlocal", "setlocal"}) do
  local f = debug[name]
  debug[name] = function(a, b, ...)
    local level = type(a) == "thread" and b or a
    if type(level) == "number" then
      local info = getinfo(level + 1, "f")
      if info and ours(info.func) then forbid("debug." .. name .. " in", "the sandbox") end
    elseif ours(level) then
      forbid("debug." .. name .. " of", "the sandbox")
    end
    return f(a, b, ...)
  end
end

texconfig.shell_escape = "f"
texconfig.shell_escape_commands = ""
