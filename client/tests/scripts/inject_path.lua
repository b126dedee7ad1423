-- a path that would end the request line and add a header: wrk.format refuses it
request = function()
   return wrk.format("GET", "/ HTTP/1.1\r\nX-Smuggled: 1\r\nX-Pad: x")
end
