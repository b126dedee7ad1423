-- a method that would add a header line: wrk.format refuses it
request = function()
   return wrk.format("GET / HTTP/1.1\r\nX-Smuggled: 1\r\nX-Pad:", "/")
end
