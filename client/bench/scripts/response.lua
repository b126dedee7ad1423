-- prebuilt.lua plus a response() that reads the status and a header: wrk then builds a
-- headers table per response, barrage refills one.
local req
local ok, typed = 0, 0

function init(args)
  req = wrk.format(nil, "/")
end

function request()
  return req
end

function response(status, headers, body)
  if status == 200 then ok = ok + 1 end
  if headers["Content-Type"] then typed = typed + 1 end
end
