-- wrk script for scripts/load.sh's LOAD_TOKENS modes: a bearer token per request, from a file.
--
--   wrk -t1 -s scripts/load-tokens.lua URL -- TOKENS_FILE MODE CURSOR_FILE [REPEATED]
--
-- TOKENS_FILE holds one token per line. MODE:
--   rotate  each request carries the next token of the file, cycling;
--   flood   requests alternate between a repeated token (the first REPEATED lines, default 64,
--           in turn) and the next one-time token (the other lines, cycling).
-- Every request is prepared at start (the whole GET with its Authorization header), so a
-- request costs wrk the same whatever its token. CURSOR_FILE keeps where the sequence stopped
-- ("next repeated, next one-time, next kind"), read at start and written at the end, so the
-- runs that share it (a warm-up, then the measurement, round after round) continue one
-- sequence: a token comes back only after the whole cycle. One thread (-t1) only.
local repeated, once = {}, {}
local mode
-- Globals, so done() can read them from the thread (thread:get).
cursor_file = nil
next_repeated, next_once, next_kind = 1, 1, 0

local function read_cursor(path)
    local f = io.open(path, "r")
    if not f then return end
    local a, b, c = f:read("*n", "*n", "*n")
    f:close()
    if a and b and c then next_repeated, next_once, next_kind = a, b, c end
end

function init(args)
    local file = assert(args[1], "load-tokens.lua: a tokens file")
    mode = args[2] or "rotate"
    cursor_file = args[3]
    local count = tonumber(args[4] or "64")
    assert(mode == "rotate" or mode == "flood", "load-tokens.lua: mode rotate or flood")
    local all = {}
    for line in io.lines(file) do
        if #line > 0 then
            all[#all + 1] = wrk.format("GET", wrk.path, { Host = wrk.headers["Host"], Authorization = "Bearer " .. line })
        end
    end
    if mode == "rotate" then
        once = all
    else
        assert(#all > count, "load-tokens.lua: more tokens than the repeated ones")
        for i = 1, #all do
            if i <= count then repeated[#repeated + 1] = all[i] else once[#once + 1] = all[i] end
        end
    end
    if cursor_file then read_cursor(cursor_file) end
    if next_once > #once then next_once = 1 end
    if #repeated > 0 and next_repeated > #repeated then next_repeated = 1 end
end

function request()
    if mode == "flood" and next_kind == 0 then
        next_kind = 1
        local r = repeated[next_repeated]
        next_repeated = next_repeated % #repeated + 1
        return r
    end
    next_kind = 0
    local r = once[next_once]
    next_once = next_once % #once + 1
    return r
end

local threads = {}
function setup(thread)
    threads[#threads + 1] = thread
end

function done()
    local path = threads[1] and threads[1]:get("cursor_file")
    if not path then return end
    local t = threads[1]
    local f = assert(io.open(path, "w"))
    f:write(string.format("%d %d %d\n", t:get("next_repeated"), t:get("next_once"), t:get("next_kind")))
    f:close()
end
