-- init(args): args[0] is the URL, the script's arguments follow
function init(args)
  url = args[0]
  joined = table.concat(args, ",")
  count = #args
end
