-- delay(): milliseconds before the next request; the test sets next_delay
function delay()
  return next_delay
end
