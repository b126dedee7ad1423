/* script: wrk's scripting API on LuaJIT. The wrk table and its Lua functions
 * (format, resolve, setup, init) are wrk 4.2's src/wrk.lua, so scripts see the
 * same behaviour, oddities included (SCRIPTING.md); the C side follows wrk's
 * src/script.c with protected calls, errors returned instead of exits, and
 * the callbacks kept on each state's stack instead of looked up per call. */
#include "script.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hist.h"
#include "monotonic.h"

extern char **environ;

/* Fixed stack slots. Every state: the traceback handler. A thread state also
 * keeps what its hot path uses, so a call looks nothing up. */
enum {
    SLOT_TRACEBACK = 1,
    SLOT_HEADERS,  /* the headers table response() gets, reused */
    SLOT_HEADER_STRINGS, /* the strings in it: [2i+1] name i, [2i+2] value i (struct header_strings) */
    SLOT_KINDS,    /* kind name -> number */
    SLOT_LAST,     /* the last request string asked for without a conn */
    SLOT_REQUEST,  /* request, or the default wrk.request */
    SLOT_RESPONSE, /* response, or nil */
    SLOT_DELAY,    /* delay, or nil */
    SLOT_BASE = SLOT_DELAY
};

#define ADDR_META "wrk.addr"
#define STATS_META "wrk.stats"
#define THREAD_META "wrk.thread"
#define HEADERS_META "barrage.headers"
#define TAKES_KEY "barrage.takes"
#define COPY_MAX_DEPTH 32
#define SCRIPT_KEY "barrage.script"   /* registry: the struct script of the state (the watchdog's) */
#define WATCHDOG_INSTRUCTIONS 1000    /* the hook looks every this many VM instructions */
#define EXECUTE_POLL_US 2000          /* os.execute: how often it looks at the watchdog while waiting */

/* wrk.addr: a copy of one address (no pointers, so no __gc). */
struct script_addr {
    int family, socktype, protocol;
    socklen_t len;
    struct sockaddr_storage sa;
};

struct script {
    lua_State *L;
    const char *file;
    struct script_target target;
    struct script_addr addr;
    struct script_thread *threads; /* every thread made, newest first */
    unsigned thread_count;
    /* the watchdog: every state of the script stops when halt is set (any
     * thread); Lua running in main_thread (the top level, setup, init, done)
     * also stops at limit_us (0: none) and on script_halt_signal */
    atomic_int halt; /* enum script_halt */
    pthread_t main_thread;
    uint64_t limit_us;
    char error[SCRIPT_ERROR_MAX];
};

/* Set by script_halt_signal from a signal handler: stops the Lua that runs in
 * the main thread of every script (there is one per process). */
static atomic_int halt_signal;

/* The strings the headers table was last filled with, as Lua holds them at
 * SLOT_HEADER_STRINGS (LuaJIT does not move a string: the pointers stay valid
 * while that table refers to it). */
struct header_string {
    const char *name, *value;
    size_t name_len, value_len;
};

struct header_strings {
    struct header_string *items; /* owned; cap entries, count filled */
    size_t count, cap;
    bool dirty; /* the script added a key to the table (its __newindex ran) */
};

struct script_thread {
    struct script *script;
    struct script_thread *next;
    lua_State *L;
    struct script_addr addr;
    atomic_bool stopped;
    bool is_static, wants_response, has_delay;
    bool uses_conn; /* request, response or delay takes the conn parameter */
    unsigned kind_count;
    char *kind_names[SCRIPT_MAX_KINDS];
    struct header_strings header_strings;
    char error[SCRIPT_ERROR_MAX];
};

/* wrk 4.2's src/wrk.lua (Apache License 2.0), and `takes`, which tells
 * whether a function takes the conn parameter. */
static const char PRELUDE[] =
    "local wrk = {\n"
    "   scheme  = \"http\",\n"
    "   host    = \"localhost\",\n"
    "   port    = nil,\n"
    "   method  = \"GET\",\n"
    "   path    = \"/\",\n"
    "   headers = {},\n"
    "   body    = nil,\n"
    "   thread  = nil,\n"
    "}\n"
    "function wrk.resolve(host, service)\n"
    "   local addrs = wrk.lookup(host, service)\n"
    "   for i = #addrs, 1, -1 do\n"
    "      if not wrk.connect(addrs[i]) then\n"
    "         table.remove(addrs, i)\n"
    "      end\n"
    "   end\n"
    "   wrk.addrs = addrs\n"
    "end\n"
    "function wrk.setup(thread)\n"
    "   thread.addr = wrk.addrs[1]\n"
    "   if type(setup) == \"function\" then\n"
    "      setup(thread)\n"
    "   end\n"
    "end\n"
    "function wrk.init(args)\n"
    "   if not wrk.headers[\"Host\"] then\n"
    "      local host = wrk.host\n"
    "      local port = wrk.port\n"
    "      host = host:find(\":\") and (\"[\" .. host .. \"]\")  or host\n"
    "      host = port           and (host .. \":\" .. port) or host\n"
    "      wrk.headers[\"Host\"] = host\n"
    "   end\n"
    "   if type(init) == \"function\" then\n"
    "      init(args)\n"
    "   end\n"
    "   local req = wrk.format()\n"
    "   wrk.request = function()\n"
    "      return req\n"
    "   end\n"
    "end\n"
    "local TOKEN = \"^[%w!#%$%%&'%*%+%-%.%^_`|~]+$\"\n"
    "local function shown(s)\n"
    "   return (s:gsub(\"[%c\\128-\\255]\", function(c) return string.format(\"\\\\x%02x\", c:byte()) end))\n"
    "end\n"
    "local function check_request(method, path, headers)\n"
    "   method, path = tostring(method), tostring(path)\n"
    "   if not method:find(TOKEN) then\n"
    "      error(\"wrk.format: bad method '\" .. shown(method) .. \"' (a token, RFC 9110 9.1)\", 3)\n"
    "   end\n"
    "   if path == \"\" or path:find(\"[%c ]\") then\n"
    "      error(\"wrk.format: bad path '\" .. shown(path) .. \"' (not empty, no space or control character)\", 3)\n"
    "   end\n"
    "   for name, value in pairs(headers) do\n"
    "      name, value = tostring(name), tostring(value)\n"
    "      if not name:find(TOKEN) then\n"
    "         error(\"wrk.format: bad header name '\" .. shown(name) .. \"' (a token, RFC 9110 5.1)\", 3)\n"
    "      end\n"
    "      if value:gsub(\"\\t\", \"\"):find(\"%c\") then\n"
    "         error(\"wrk.format: a control character in the value of header \" .. name .. \": '\" ..\n"
    "               shown(value) .. \"' (RFC 9110 5.5)\", 3)\n"
    "      end\n"
    "   end\n"
    "end\n"
    "function wrk.format(method, path, headers, body)\n"
    "   local method  = method  or wrk.method\n"
    "   local path    = path    or wrk.path\n"
    "   local headers = headers or wrk.headers\n"
    "   local body    = body    or wrk.body\n"
    "   local s       = {}\n"
    "   if not headers[\"Host\"] then\n"
    "      headers[\"Host\"] = wrk.headers[\"Host\"]\n"
    "   end\n"
    "   headers[\"Content-Length\"] = body and string.len(body)\n"
    "   check_request(method, path, headers)\n"
    "   s[1] = string.format(\"%s %s HTTP/1.1\", method, path)\n"
    "   for name, value in pairs(headers) do\n"
    "      s[#s+1] = string.format(\"%s: %s\", name, value)\n"
    "   end\n"
    "   s[#s+1] = \"\"\n"
    "   s[#s+1] = body or \"\"\n"
    "   return table.concat(s, \"\\r\\n\")\n"
    "end\n"
    "local getinfo = debug.getinfo\n"
    "local function takes(f, n)\n"
    "   local info = getinfo(f, \"u\")\n"
    "   return info.isvararg or info.nparams >= n\n"
    "end\n"
    "return wrk, takes\n";

/* ---- the watchdog ---- */

static const char *halt_message(int why)
{
    switch (why) {
    case SCRIPT_HALT_DEADLINE: return "stopped by barrage's watchdog: still running after the run's end (-d and --grace)";
    case SCRIPT_HALT_SIGNAL: return "stopped: the run was interrupted (SIGINT or SIGTERM)";
    case SCRIPT_HALT_LIMIT: return "stopped by barrage's watchdog: ran longer than --timeout";
    default: return NULL;
    }
}

/* Why Lua running now in a state of s must stop, or NULL. */
static const char *halt_reason(struct script *s)
{
    int why = atomic_load_explicit(&s->halt, memory_order_relaxed);
    if (why) return halt_message(why);
    if (!pthread_equal(pthread_self(), s->main_thread)) return NULL;
    if (atomic_load_explicit(&halt_signal, memory_order_relaxed)) return halt_message(SCRIPT_HALT_SIGNAL);
    if (s->limit_us && monotonic_now_us() >= s->limit_us) return halt_message(SCRIPT_HALT_LIMIT);
    return NULL;
}

static struct script *script_of(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, SCRIPT_KEY);
    struct script *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

/* The count hook of every state: raises the error that stops the script. */
static void watchdog_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    struct script *s = script_of(L);
    const char *why = s ? halt_reason(s) : NULL;
    if (why) luaL_error(L, "%s", why);
}

void script_halt(struct script *s, enum script_halt why)
{
    int none = SCRIPT_HALT_NONE;
    atomic_compare_exchange_strong(&s->halt, &none, (int)why);
}

void script_halt_signal(bool on)
{
    atomic_store(&halt_signal, on);
}

/* The main thread's callbacks (the top level, setup, init, done) may each run
 * for the script's limit: from now, or none (0) when done. */
static void limit_start(struct script *s)
{
    s->limit_us = s->target.callback_limit_us ? monotonic_now_us() + s->target.callback_limit_us : 0;
}

static void limit_end(struct script *s)
{
    s->limit_us = 0;
}

/* os.exit(): ends the run (an error that names the callback), never the process. */
static int script_os_exit(lua_State *L)
{
    return luaL_error(L, "os.exit() called: a script cannot end barrage; the run stops here");
}

static int script_jit_on(lua_State *L)
{
    return luaL_error(L, "jit.on(): barrage runs scripts in LuaJIT's interpreter, so that its watchdog can stop them");
}

/* os.execute(command): as Lua's (the exit status, or whether a shell exists
 * without a command), but the wait gives way to the watchdog: the command's
 * process group is killed and the script stopped. */
static int script_os_execute(lua_State *L)
{
    const char *cmd = luaL_optstring(L, 1, NULL);
    if (!cmd) {
        lua_pushinteger(L, access("/bin/sh", X_OK) == 0);
        return 1;
    }
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none); /* not the worker's blocked SIGINT */
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        lua_pushinteger(L, -1);
        return 1;
    }
    struct script *s = script_of(L);
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) break;
        const char *why = s ? halt_reason(s) : NULL;
        if (why) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            return luaL_error(L, "os.execute(): %s", why);
        }
        struct timespec pause = {0, EXECUTE_POLL_US * 1000};
        nanosleep(&pause, NULL);
    }
    lua_pushinteger(L, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 1;
}

/* The watchdog in state L of s: the JIT compiler off (a compiled loop never
 * sees a hook), the count hook, and os.exit/os.execute replaced. */
static void watchdog_install(lua_State *L, struct script *s)
{
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    lua_pushlightuserdata(L, s);
    lua_setfield(L, LUA_REGISTRYINDEX, SCRIPT_KEY);
    lua_sethook(L, watchdog_hook, LUA_MASKCOUNT, WATCHDOG_INSTRUCTIONS);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, script_os_exit);
    lua_setfield(L, -2, "exit");
    lua_pushcfunction(L, script_os_execute);
    lua_setfield(L, -2, "execute");
    lua_pop(L, 1);
    lua_getglobal(L, "jit"); /* jit.on() would turn the compiler back on */
    if (lua_istable(L, -1)) {
        lua_pushcfunction(L, script_jit_on);
        lua_setfield(L, -2, "on");
    }
    lua_pop(L, 1);
}

/* ---- errors ---- */

/* The message handler of every protected call: the message and a traceback. */
static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Calls the function below nargs arguments; on an error writes "what: message"
 * into error and leaves the stack as it was below the function. */
static int call(lua_State *L, int nargs, int nresults, char *error, const char *what)
{
    if (lua_pcall(L, nargs, nresults, SLOT_TRACEBACK) == 0) return 0;
    const char *msg = lua_tostring(L, -1);
    snprintf(error, SCRIPT_ERROR_MAX, "%s: %s", what, msg ? msg : "(no message)");
    lua_pop(L, 1);
    return -1;
}

/* call() of a callback of s: one the watchdog stopped while it was blocked
 * in C (it returned, but only because it was interrupted) fails too. */
static int call_watched(struct script *s, lua_State *L, int nargs, int nresults, char *error, const char *what)
{
    if (call(L, nargs, nresults, error, what)) return -1;
    const char *why = halt_reason(s);
    if (!why) return 0;
    if (nresults) lua_pop(L, nresults);
    snprintf(error, SCRIPT_ERROR_MAX, "%s: %s", what, why);
    return -1;
}

/* A callback returned something unusable: names the function's definition. */
static int bad_result(struct script_thread *t, int slot, const char *what, const char *problem)
{
    lua_Debug ar;
    lua_pushvalue(t->L, slot);
    lua_getinfo(t->L, ">S", &ar);
    snprintf(t->error, sizeof t->error, "%s: %s (the function defined at %s:%d)", what, problem, ar.short_src,
             ar.linedefined);
    lua_settop(t->L, SLOT_BASE);
    return -1;
}

/* Globals and wrk fields are read raw: a script's metatable on _G (strict.lua)
 * must not raise errors outside a protected call. */
static void get_global(lua_State *L, const char *name)
{
    lua_pushstring(L, name);
    lua_rawget(L, LUA_GLOBALSINDEX);
}

/* Pushes wrk[field] if it is a function; returns -1 (nothing pushed) if not. */
static int push_wrk_function(lua_State *L, const char *field)
{
    get_global(L, "wrk");
    if (lua_istable(L, -1)) {
        lua_pushstring(L, field);
        lua_rawget(L, -2);
        lua_remove(L, -2);
        if (lua_isfunction(L, -1)) return 0;
    }
    lua_pop(L, 1);
    return -1;
}

/* ---- wrk.addr, wrk.lookup, wrk.connect ---- */

static void push_addr(lua_State *L, const struct script_addr *a)
{
    struct script_addr *copy = lua_newuserdata(L, sizeof *copy);
    *copy = *a;
    luaL_getmetatable(L, ADDR_META);
    lua_setmetatable(L, -2);
}

static int addr_tostring(lua_State *L)
{
    const struct script_addr *a = luaL_checkudata(L, 1, ADDR_META);
    if (a->family == AF_UNIX) {
        lua_pushstring(L, ((const struct sockaddr_un *)&a->sa)->sun_path);
        return 1;
    }
    char host[NI_MAXHOST], service[NI_MAXSERV];
    int rc = getnameinfo((const struct sockaddr *)&a->sa, a->len, host, sizeof host, service, sizeof service,
                         NI_NUMERICHOST | NI_NUMERICSERV);
    if (rc != 0) return luaL_error(L, "addr tostring failed %s", gai_strerror(rc));
    lua_pushfstring(L, "%s:%s", host, service);
    return 1;
}

/* wrk.lookup(host, service): every address getaddrinfo gives (an error where
 * wrk exits). */
static int wrk_lookup(lua_State *L)
{
    const char *host = luaL_optstring(L, 1, NULL), *service = luaL_optstring(L, 2, NULL);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found;
    int rc = getaddrinfo(host, service, &hints, &found);
    if (rc != 0)
        return luaL_error(L, "unable to resolve %s:%s %s", host ? host : "", service ? service : "", gai_strerror(rc));
    lua_newtable(L);
    int i = 1;
    for (const struct addrinfo *ai = found; ai; ai = ai->ai_next) {
        if (ai->ai_addrlen > sizeof(struct sockaddr_storage)) continue;
        struct script_addr a = {ai->ai_family, ai->ai_socktype, ai->ai_protocol, ai->ai_addrlen, {0}};
        memcpy(&a.sa, ai->ai_addr, ai->ai_addrlen);
        push_addr(L, &a);
        lua_rawseti(L, -2, i++);
    }
    freeaddrinfo(found);
    return 1;
}

/* wrk.connect(addr): whether a blocking connect succeeds, as wrk. */
static int wrk_connect(lua_State *L)
{
    const struct script_addr *a = luaL_checkudata(L, 1, ADDR_META);
    int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol), connected = 0;
    if (fd >= 0) {
        connected = connect(fd, (const struct sockaddr *)&a->sa, a->len) == 0;
        close(fd);
    }
    lua_pushboolean(L, connected);
    return 1;
}

/* ---- stats objects (done) ---- */

static const struct hist *check_stats(lua_State *L)
{
    return *(const struct hist **)luaL_checkudata(L, 1, STATS_META);
}

static int stats_percentile(lua_State *L)
{
    const struct hist *h = check_stats(L);
    double p = luaL_checknumber(L, 2);
    if (!(p >= 0)) p = 0; /* NaN too */
    if (p > 100) p = 100;
    lua_pushnumber(L, (double)hist_percentile(h, p));
    return 1;
}

static int stats_index(lua_State *L)
{
    const struct hist *h = check_stats(L);
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (strcmp(key, "min") == 0) lua_pushnumber(L, (double)h->min);
    else if (strcmp(key, "max") == 0) lua_pushnumber(L, (double)h->max);
    else if (strcmp(key, "mean") == 0) lua_pushnumber(L, hist_mean(h));
    else if (strcmp(key, "stdev") == 0) lua_pushnumber(L, hist_stdev(h));
    else if (strcmp(key, "percentile") == 0) lua_pushcfunction(L, stats_percentile);
    else lua_pushnil(L);
    return 1;
}

/* latency(i): the i-th distinct value and its count (0, 0 past the end). */
static int stats_call(lua_State *L)
{
    const struct hist *h = check_stats(L);
    double i = lua_tonumber(L, 2);
    uint64_t value = 0, count = 0;
    if (i >= 1 && i < 1e18) value = hist_value_at(h, (uint64_t)i - 1, &count);
    lua_pushnumber(L, (double)value);
    lua_pushnumber(L, (double)count);
    return 2;
}

static int stats_len(lua_State *L)
{
    lua_pushnumber(L, (double)hist_distinct(check_stats(L)));
    return 1;
}

static void push_stats(lua_State *L, const struct hist *h)
{
    const struct hist **box = lua_newuserdata(L, sizeof *box);
    *box = h;
    luaL_getmetatable(L, STATS_META);
    lua_setmetatable(L, -2);
}

/* ---- threads: thread.addr, thread:get/set/stop ---- */

static struct script_thread *check_thread(lua_State *L)
{
    return *(struct script_thread **)luaL_checkudata(L, 1, THREAD_META);
}

static void push_thread(lua_State *L, struct script_thread *t)
{
    struct script_thread **box = lua_newuserdata(L, sizeof *box);
    *box = t;
    luaL_getmetatable(L, THREAD_META);
    lua_setmetatable(L, -2);
}

/* Pushes onto dst a copy of src's value at idx (an absolute index): nil,
 * booleans, numbers, strings and tables of them, as wrk. Returns NULL, or what
 * could not be copied (dst and src then hold leftovers the caller drops). */
static const char *copy_value(lua_State *src, int idx, lua_State *dst, int depth)
{
    switch (lua_type(src, idx)) {
    case LUA_TNIL: lua_pushnil(dst); return NULL;
    case LUA_TBOOLEAN: lua_pushboolean(dst, lua_toboolean(src, idx)); return NULL;
    case LUA_TNUMBER: lua_pushnumber(dst, lua_tonumber(src, idx)); return NULL;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(src, idx, &len);
        lua_pushlstring(dst, s, len);
        return NULL;
    }
    case LUA_TTABLE:
        if (depth == COPY_MAX_DEPTH || !lua_checkstack(src, 3) || !lua_checkstack(dst, 3))
            return "table nested over 32 levels (a cycle?)";
        lua_newtable(dst);
        lua_pushnil(src);
        while (lua_next(src, idx)) {
            int top = lua_gettop(src);
            const char *bad = copy_value(src, top - 1, dst, depth + 1);
            if (!bad) bad = copy_value(src, top, dst, depth + 1);
            if (bad) return bad;
            lua_rawset(dst, -3);
            lua_pop(src, 1);
        }
        return NULL;
    default: return lua_typename(src, lua_type(src, idx));
    }
}

static int thread_get(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    if (t->L == L) {
        get_global(L, name);
        return 1;
    }
    int top = lua_gettop(t->L);
    get_global(t->L, name);
    const char *bad = copy_value(t->L, top + 1, L, 0);
    lua_settop(t->L, top);
    if (bad) return luaL_error(L, "cannot transfer '%s' from thread", bad);
    return 1;
}

static int thread_set(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    luaL_checkany(L, 3);
    lua_State *dst = t->L == L ? NULL : t->L;
    if (!dst) {
        lua_pushstring(L, name);
        lua_pushvalue(L, 3);
        lua_rawset(L, LUA_GLOBALSINDEX);
        return 0;
    }
    int top = lua_gettop(dst);
    lua_pushstring(dst, name);
    const char *bad = copy_value(L, 3, dst, 0);
    if (bad) {
        lua_settop(dst, top);
        return luaL_error(L, "cannot transfer '%s' to thread", bad);
    }
    lua_rawset(dst, LUA_GLOBALSINDEX);
    return 0;
}

static int thread_stop(lua_State *L)
{
    atomic_store(&check_thread(L)->stopped, true);
    return 0;
}

static int thread_index(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (strcmp(key, "get") == 0) lua_pushcfunction(L, thread_get);
    else if (strcmp(key, "set") == 0) lua_pushcfunction(L, thread_set);
    else if (strcmp(key, "stop") == 0) lua_pushcfunction(L, thread_stop);
    else if (strcmp(key, "addr") == 0) push_addr(L, &t->addr);
    else lua_pushnil(L);
    return 1;
}

static int thread_newindex(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";
    if (strcmp(key, "addr") != 0) return luaL_error(L, "cannot set '%s' on thread", key);
    t->addr = *(const struct script_addr *)luaL_checkudata(L, 3, ADDR_META);
    return 0;
}

/* ---- the headers table: names looked up without regard to case ---- */

/* __index, reached only when the exact name is absent: compares every name. */
static int headers_index(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    size_t len, name_len;
    const char *key = lua_tolstring(L, 2, &len);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *name = lua_tolstring(L, -2, &name_len);
            if (name_len == len && strncasecmp(name, key, len) == 0) return 1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* __newindex of a thread's headers table: the key is set, and the table is
 * marked to be emptied before the next response (push_headers). Upvalue 1:
 * the thread's struct header_strings. */
static int headers_newindex(lua_State *L)
{
    struct header_strings *hs = lua_touserdata(L, lua_upvalueindex(1));
    hs->dirty = true;
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

/* Pushes the string of headers[i] (name or value) kept at SLOT_HEADER_STRINGS
 * when it has the same bytes; else pushes a new one and keeps it there. */
static void push_header_string(lua_State *L, const char **kept, size_t *kept_len, int index,
                               const char *text, size_t len)
{
    if (*kept && *kept_len == len && memcmp(*kept, text, len) == 0) {
        lua_rawgeti(L, SLOT_HEADER_STRINGS, index);
        return;
    }
    lua_pushlstring(L, text, len);
    *kept = lua_tolstring(L, -1, kept_len);
    lua_pushvalue(L, -1);
    lua_rawseti(L, SLOT_HEADER_STRINGS, index);
}

/* Fills the table at SLOT_HEADERS with the response's headers and pushes it.
 * It is emptied first only when its keys may differ from the last response's
 * (other names, or the script added a key): a key the script removed or changed
 * is set again. Strings are reused while their bytes stay the same (a
 * response's names and most values), so a refill interns nothing new. The
 * strings array grows (an allocation) only for a response with more headers
 * than any before; 0, or -1 when it cannot. */
static int push_headers(lua_State *L, struct header_strings *hs, const struct response_header *headers,
                        size_t count)
{
    if (count > hs->cap) {
        struct header_string *items = realloc(hs->items, count * sizeof *items);
        if (!items) return -1;
        memset(items + hs->cap, 0, (count - hs->cap) * sizeof *items);
        hs->items = items, hs->cap = count;
    }
    bool same_keys = !hs->dirty && count == hs->count;
    for (size_t i = 0; same_keys && i < count; i++)
        same_keys = hs->items[i].name_len == headers[i].name_len &&
                    memcmp(hs->items[i].name, headers[i].name, headers[i].name_len) == 0;
    if (!same_keys) {
        lua_pushnil(L);
        while (lua_next(L, SLOT_HEADERS)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, SLOT_HEADERS);
        }
    }
    for (size_t i = 0; i < count; i++) {
        struct header_string *kept = &hs->items[i];
        push_header_string(L, &kept->name, &kept->name_len, (int)(2 * i + 1), headers[i].name, headers[i].name_len);
        push_header_string(L, &kept->value, &kept->value_len, (int)(2 * i + 2), headers[i].value, headers[i].value_len);
        lua_rawset(L, SLOT_HEADERS);
    }
    hs->count = count;
    hs->dirty = false;
    lua_pushvalue(L, SLOT_HEADERS);
    return 0;
}

/* ---- states ---- */

static void new_metatable(lua_State *L, const char *name, const luaL_Reg *functions)
{
    luaL_newmetatable(L, name);
    luaL_register(L, NULL, functions);
    lua_pop(L, 1);
}

static void register_metatables(lua_State *L)
{
    static const luaL_Reg addr[] = {{"__tostring", addr_tostring}, {NULL, NULL}};
    static const luaL_Reg stats[] = {
        {"__index", stats_index}, {"__call", stats_call}, {"__len", stats_len}, {NULL, NULL}};
    static const luaL_Reg thread[] = {{"__index", thread_index}, {"__newindex", thread_newindex}, {NULL, NULL}};
    static const luaL_Reg headers[] = {{"__index", headers_index}, {NULL, NULL}};
    new_metatable(L, ADDR_META, addr);
    new_metatable(L, STATS_META, stats);
    new_metatable(L, THREAD_META, thread);
    new_metatable(L, HEADERS_META, headers);
}

static void set_string(lua_State *L, const char *field, const char *value)
{
    if (!value) return;
    lua_pushstring(L, value);
    lua_setfield(L, -2, field);
}

/* -H lines into wrk.headers (the table on top): "Name: value", blanks before
 * the value skipped; a line without ':' is ignored, as wrk. */
static void set_headers(lua_State *L, const struct script_target *target)
{
    lua_getfield(L, -1, "headers");
    for (unsigned i = 0; i < target->header_count; i++) {
        const char *line = target->headers[i], *colon = strchr(line, ':');
        if (!colon) continue;
        const char *value = colon + 1;
        while (*value == ' ' || *value == '\t') value++;
        lua_pushlstring(L, line, (size_t)(colon - line));
        lua_pushstring(L, value);
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
}

/* Fills the wrk table on top of the stack from the command line, then makes it
 * the global wrk (and require "wrk"). Pops it. */
static void set_wrk(lua_State *L, const struct script *s)
{
    const struct script_target *target = &s->target;
    set_string(L, "scheme", target->scheme);
    set_string(L, "host", target->host);
    set_string(L, "port", target->port);
    set_string(L, "path", target->path);
    set_string(L, "method", target->method);
    if (target->body) {
        lua_pushlstring(L, target->body, target->body_len);
        lua_setfield(L, -2, "body");
    }
    set_headers(L, target);
    lua_pushcfunction(L, wrk_lookup);
    lua_setfield(L, -2, "lookup");
    lua_pushcfunction(L, wrk_connect);
    lua_setfield(L, -2, "connect");
    lua_newtable(L);
    push_addr(L, &s->addr);
    lua_rawseti(L, -2, 1);
    lua_setfield(L, -2, "addrs");
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "loaded");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "wrk");
    lua_pop(L, 2);
    lua_setglobal(L, "wrk");
}

/* A new state with the wrk table, the metatables and the script run; its stack
 * holds the traceback handler. NULL with the reason in err. */
static lua_State *state_new(struct script *s, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "%s: cannot create a Lua state (out of memory)", s->file);
        return NULL;
    }
    luaL_openlibs(L);
    watchdog_install(L, s);
    lua_pushcfunction(L, traceback); /* SLOT_TRACEBACK */
    register_metatables(L);
    if (luaL_loadbuffer(L, PRELUDE, sizeof PRELUDE - 1, "=wrk") || lua_pcall(L, 0, 2, SLOT_TRACEBACK)) {
        snprintf(err, errlen, "wrk prelude: %s", lua_tostring(L, -1));
        lua_close(L);
        return NULL;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, TAKES_KEY);
    set_wrk(L, s);
    limit_start(s);
    int rc = luaL_loadfile(L, s->file) || lua_pcall(L, 0, 0, SLOT_TRACEBACK);
    limit_end(s);
    if (rc) {
        const char *msg = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", msg ? msg : "(no message)");
        lua_close(L);
        return NULL;
    }
    return L;
}

struct script *script_new(const char *file, const struct script_target *target, char *err, size_t errlen)
{
    if (!target->addr || target->addr_len > sizeof(struct sockaddr_storage)) {
        snprintf(err, errlen, "%s: no address to start the threads with", file);
        return NULL;
    }
    struct script *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", file);
        return NULL;
    }
    s->file = file;
    s->target = *target;
    atomic_init(&s->halt, SCRIPT_HALT_NONE);
    s->main_thread = pthread_self();
    s->addr = (struct script_addr){target->addr->sa_family, SOCK_STREAM, 0, target->addr_len, {0}};
    memcpy(&s->addr.sa, target->addr, target->addr_len);
    s->L = state_new(s, err, errlen);
    if (!s->L) {
        free(s);
        return NULL;
    }
    return s;
}

void script_free(struct script *s)
{
    if (!s) return;
    lua_close(s->L);
    for (struct script_thread *t = s->threads, *next; t; t = next) {
        next = t->next;
        if (t->L) lua_close(t->L);
        for (unsigned i = 0; i < t->kind_count; i++) free(t->kind_names[i]);
        free(t->header_strings.items);
        free(t);
    }
    free(s);
}

const char *script_error(const struct script *s)
{
    return s->error;
}

/* Does the function at slot take n parameters or more (or ...)? */
static bool takes(lua_State *L, int slot, int n)
{
    if (lua_isnil(L, slot)) return false;
    lua_getfield(L, LUA_REGISTRYINDEX, TAKES_KEY);
    lua_pushvalue(L, slot);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 2, 1, SLOT_TRACEBACK) != 0) {
        lua_pop(L, 1);
        return true;
    }
    bool yes = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return yes;
}

/* Pushes a global if it is a function, else nil. */
static bool push_function(lua_State *L, const char *name)
{
    get_global(L, name);
    if (lua_isfunction(L, -1)) return true;
    lua_pop(L, 1);
    lua_pushnil(L);
    return false;
}

/* After init(): fills the slots above SLOT_TRACEBACK. */
static int thread_slots(struct script_thread *t, char *err)
{
    lua_State *L = t->L;
    lua_newtable(L); /* SLOT_HEADERS */
    luaL_getmetatable(L, HEADERS_META);
    lua_pushlightuserdata(L, &t->header_strings);
    lua_pushcclosure(L, headers_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_newtable(L); /* SLOT_HEADER_STRINGS */
    lua_newtable(L); /* SLOT_KINDS */
    lua_pushnil(L);  /* SLOT_LAST */
    get_global(L, "request");
    t->is_static = !lua_isfunction(L, -1);
    if (t->is_static) {
        lua_pop(L, 1);
        if (push_wrk_function(L, "request")) {
            snprintf(err, SCRIPT_ERROR_MAX, "init(): no request function (wrk.request is not one)");
            return -1;
        }
    }
    t->wants_response = push_function(L, "response");
    t->has_delay = push_function(L, "delay");
    t->uses_conn = (!t->is_static && takes(L, SLOT_REQUEST, 1)) || takes(L, SLOT_RESPONSE, 4) ||
                   takes(L, SLOT_DELAY, 1);
    return 0;
}

/* init(args) in the thread's state: args[0] the URL, then the arguments. */
static int run_init(struct script_thread *t, int argc, const char *const *argv, char *err)
{
    lua_State *L = t->L;
    if (push_wrk_function(L, "init")) {
        snprintf(err, SCRIPT_ERROR_MAX, "init(): wrk.init is not a function");
        return -1;
    }
    lua_createtable(L, argc, 1);
    lua_pushstring(L, t->script->target.url ? t->script->target.url : "");
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    limit_start(t->script);
    int rc = call_watched(t->script, L, 1, 0, err, "init()");
    limit_end(t->script);
    return rc;
}

/* setup(thread) in the main state, through wrk.setup as wrk. */
static int run_setup(struct script *s, struct script_thread *t)
{
    if (push_wrk_function(s->L, "setup")) {
        snprintf(s->error, sizeof s->error, "setup(): wrk.setup is not a function");
        return -1;
    }
    push_thread(s->L, t);
    limit_start(s);
    int rc = call_watched(s, s->L, 1, 0, s->error, "setup()");
    limit_end(s);
    return rc;
}

/* wrk calls the first thread's request() once more before the run (to count
 * the pipelined requests) and drops the result. */
static int extra_request(struct script_thread *t)
{
    struct script_conn c;
    struct script_request r;
    script_conn_open(t, &c);
    limit_start(t->script);
    int rc = script_request(t, &c, &r);
    limit_end(t->script);
    script_conn_close(t, &c);
    return rc;
}

struct script_thread *script_thread_new(struct script *s, int argc, const char *const *argv)
{
    struct script_thread *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(s->error, sizeof s->error, "out of memory");
        return NULL;
    }
    t->script = s;
    t->addr = s->addr;
    atomic_init(&t->stopped, false);
    t->next = s->threads; /* owned by s even when failing: setup may keep its userdata */
    s->threads = t;
    t->L = state_new(s, s->error, sizeof s->error);
    if (!t->L) return NULL;
    get_global(t->L, "wrk");
    if (lua_istable(t->L, -1)) {
        push_thread(t->L, t);
        lua_setfield(t->L, -2, "thread");
    }
    lua_pop(t->L, 1);
    if (run_setup(s, t) || run_init(t, argc, argv, s->error) || thread_slots(t, s->error)) return NULL;
    if (s->thread_count++ == 0 && extra_request(t)) {
        snprintf(s->error, sizeof s->error, "%s", t->error);
        return NULL;
    }
    return t;
}

struct script_thread *script_thread_at(const struct script *s, unsigned i)
{
    if (i >= s->thread_count) return NULL;
    struct script_thread *t = s->threads;
    for (unsigned newer = s->thread_count - 1 - i; newer > 0 && t; newer--) t = t->next;
    return t;
}

const char *script_thread_error(const struct script_thread *t)
{
    return t->error;
}

bool script_thread_stopped(const struct script_thread *t)
{
    return atomic_load_explicit(&t->stopped, memory_order_relaxed);
}

const struct sockaddr *script_thread_addr(const struct script_thread *t, socklen_t *len)
{
    *len = t->addr.len;
    return (const struct sockaddr *)&t->addr.sa;
}

bool script_is_static(const struct script_thread *t)
{
    return t->is_static;
}

bool script_wants_response(const struct script_thread *t)
{
    return t->wants_response;
}

bool script_has_delay(const struct script_thread *t)
{
    return t->has_delay;
}

/* ---- connections and the hot path ---- */

void script_conn_open(struct script_thread *t, struct script_conn *c)
{
    c->table_ref = LUA_NOREF;
    if (t->uses_conn) {
        lua_newtable(t->L);
        c->table_ref = luaL_ref(t->L, LUA_REGISTRYINDEX);
    }
    lua_pushboolean(t->L, 0);
    c->string_ref = luaL_ref(t->L, LUA_REGISTRYINDEX);
}

void script_conn_close(struct script_thread *t, struct script_conn *c)
{
    luaL_unref(t->L, LUA_REGISTRYINDEX, c->table_ref);
    luaL_unref(t->L, LUA_REGISTRYINDEX, c->string_ref);
    c->table_ref = c->string_ref = LUA_NOREF;
}

/* Pushes the conn argument when the script takes it; returns how many pushed. */
static int push_conn(struct script_thread *t, const struct script_conn *c)
{
    if (!t->uses_conn) return 0;
    if (c && c->table_ref != LUA_NOREF) lua_rawgeti(t->L, LUA_REGISTRYINDEX, c->table_ref);
    else lua_pushnil(t->L);
    return 1;
}

/* The kind named by the string on top (left there): its number, a new one the
 * first time. */
static int kind_of(struct script_thread *t, unsigned *kind)
{
    lua_State *L = t->L;
    char problem[96];
    if (lua_type(L, -1) != LUA_TSTRING) {
        snprintf(problem, sizeof problem, "returned %s as the request's kind, not a string", luaL_typename(L, -1));
        return bad_result(t, SLOT_REQUEST, "request()", problem);
    }
    lua_pushvalue(L, -1);
    lua_rawget(L, SLOT_KINDS);
    *kind = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (*kind) return 0;
    if (t->kind_count == SCRIPT_MAX_KINDS) {
        snprintf(problem, sizeof problem, "named more than %d request kinds", SCRIPT_MAX_KINDS);
        return bad_result(t, SLOT_REQUEST, "request()", problem);
    }
    size_t len;
    const char *name = lua_tolstring(L, -1, &len);
    char *copy = malloc(len + 1);
    if (!copy) {
        snprintf(t->error, sizeof t->error, "request(): out of memory");
        lua_settop(L, SLOT_BASE);
        return -1;
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    t->kind_names[t->kind_count++] = copy;
    *kind = t->kind_count;
    lua_pushvalue(L, -1);
    lua_pushinteger(L, (lua_Integer)*kind);
    lua_rawset(L, SLOT_KINDS);
    return 0;
}

int script_request(struct script_thread *t, struct script_conn *c, struct script_request *out)
{
    lua_State *L = t->L;
    lua_pushvalue(L, SLOT_REQUEST);
    if (call_watched(t->script, L, push_conn(t, c), 2, t->error, "request()")) return -1;
    if (lua_type(L, -2) != LUA_TSTRING || lua_objlen(L, -2) == 0) {
        char problem[64];
        if (lua_type(L, -2) == LUA_TSTRING) snprintf(problem, sizeof problem, "returned an empty string");
        else snprintf(problem, sizeof problem, "returned %s, not a string", luaL_typename(L, -2));
        return bad_result(t, SLOT_REQUEST, "request()", problem);
    }
    out->kind = 0;
    if (!lua_isnil(L, -1) && kind_of(t, &out->kind)) return -1;
    lua_pop(L, 1);
    out->data = lua_tolstring(L, -1, &out->len);
    if (c) lua_rawseti(L, LUA_REGISTRYINDEX, c->string_ref);
    else lua_replace(L, SLOT_LAST);
    return 0;
}

const char *script_kind_name(const struct script_thread *t, unsigned kind)
{
    return kind >= 1 && kind <= t->kind_count ? t->kind_names[kind - 1] : NULL;
}

unsigned script_kind_count(const struct script_thread *t)
{
    return t->kind_count;
}

int script_response(struct script_thread *t, struct script_conn *c, int status,
                    const struct response_header *headers, size_t header_count,
                    const char *body, size_t body_len)
{
    if (!t->wants_response) return 0;
    lua_State *L = t->L;
    lua_pushvalue(L, SLOT_RESPONSE);
    lua_pushinteger(L, status);
    if (push_headers(L, &t->header_strings, headers, header_count)) {
        lua_settop(L, SLOT_BASE);
        snprintf(t->error, SCRIPT_ERROR_MAX, "response(): out of memory for the headers table");
        return -1;
    }
    lua_pushlstring(L, body ? body : "", body ? body_len : 0);
    return call_watched(t->script, L, 3 + push_conn(t, c), 0, t->error, "response()");
}

int script_delay(struct script_thread *t, struct script_conn *c, uint64_t *delay_us)
{
    *delay_us = 0;
    if (!t->has_delay) return 0;
    lua_State *L = t->L;
    lua_pushvalue(L, SLOT_DELAY);
    if (call_watched(t->script, L, push_conn(t, c), 1, t->error, "delay()")) return -1;
    double ms = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (ms > 0) *delay_us = ms < 1e15 ? (uint64_t)(ms * 1000 + 0.5) : UINT64_MAX;
    return 0;
}

/* ---- done ---- */

bool script_has_done(const struct script *s)
{
    get_global(s->L, "done");
    bool yes = lua_isfunction(s->L, -1);
    lua_pop(s->L, 1);
    return yes;
}

static void set_number(lua_State *L, const char *field, uint64_t value)
{
    lua_pushnumber(L, (double)value);
    lua_setfield(L, -2, field);
}

static void push_summary(lua_State *L, const struct script_summary *sum)
{
    lua_createtable(L, 0, 4);
    set_number(L, "duration", sum->duration_us);
    set_number(L, "requests", sum->requests);
    set_number(L, "bytes", sum->bytes);
    lua_createtable(L, 0, 5);
    set_number(L, "connect", sum->errors.connect);
    set_number(L, "read", sum->errors.read);
    set_number(L, "write", sum->errors.write);
    set_number(L, "status", sum->errors.status);
    set_number(L, "timeout", sum->errors.timeout);
    lua_setfield(L, -2, "errors");
}

int script_done(struct script *s, const struct script_summary *summary,
                const struct hist *latency, const struct hist *requests)
{
    lua_State *L = s->L;
    get_global(L, "done");
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    push_summary(L, summary);
    push_stats(L, latency);
    push_stats(L, requests);
    limit_start(s);
    int rc = call_watched(s, L, 3, 0, s->error, "done()");
    limit_end(s);
    return rc;
}
