-- request() returning text that is not an HTTP/1.1 request
function request()
  return "this is not a request\r\n\r\n"
end
