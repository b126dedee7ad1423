-- request() returning several pipelined requests, and a second value naming the request's kind
local requests

function init(args)
  requests = {
    {wrk.format(nil, "/a"), "alpha"},
    {wrk.format(nil, "/b") .. wrk.format(nil, "/c"), "beta"},
    {wrk.format(nil, "/d"), nil},
  }
end

local i = 0

function request()
  i = i % #requests + 1
  return requests[i][1], requests[i][2]
end
