-- memory-over-time.sh: a script that keeps no state: a new request string per request
-- (a counter in the path, so no cached parse is reused) and a response() call per response.
-- Nothing is stored anywhere, so barrage's memory must not grow with the requests.
local n = 0
request = function()
   n = (n + 1) % 1000
   return wrk.format("GET", "/?n=" .. n)
end
response = function(status, headers, body)
end
