-- request() texts: prebuilt strings in turn, one pipelining two requests (a GET and a HEAD),
-- and kinds named by request()'s second value (the last text has none)
local texts

function init(args)
  texts = {
    {wrk.format("GET", "/a"), "a"},
    {wrk.format("GET", "/b") .. wrk.format("HEAD", "/c"), "bc"},
    {wrk.format("GET", "/d"), nil},
  }
end

local i = 0

function request()
  i = i % #texts + 1
  return texts[i][1], texts[i][2]
end
