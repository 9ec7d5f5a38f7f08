package programs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
)

// redis's image: docker-entrypoint.sh puts redis-server before options,
// and redis-server answers RESP on port 6379 (or --port), keeping its
// keys in memory.
var redisImage = Image{Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"redis-server"},
	Shell: true, Bash: true, alpineTags: true,
	programs: map[string]Program{
		"docker-entrypoint.sh": entrypoint("redis-server", nil),
		"redis-server":         redisServer,
	}}

// redisVersions are the last releases of the branches a tag may name.
var redisVersions = map[string]string{
	"6": "6.2.17", "6.0": "6.0.20", "6.2": "6.2.17", "7": "7.4.2", "7.0": "7.0.15", "7.2": "7.2.7", "7.4": "7.4.2", "8": "8.0.2", "8.0": "8.0.2",
}

func redisVersion(tag string) string {
	v, _, _ := strings.Cut(tag, "-")
	if strings.Count(v, ".") == 2 && strings.Trim(v, "0123456789.") == "" {
		return v
	}
	if full, ok := redisVersions[v]; ok {
		return full
	}
	return "7.4.2"
}

// redisServer is redis-server: its start-up log, then RESP on its port
// until killed.
func redisServer(ctx context.Context, r Run) int {
	p, h, version := r.Process, r.Host, redisVersion(r.Tag)
	port, pass, configured := 6379, "", false
	args := p.Args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--version" || a == "-v":
			fmt.Fprintf(p.Stdout, "Redis server v=%s sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=4b8a0a3c1c6c6d49\n", version)
			return 0
		case a == "--port" && i+1 < len(args):
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n <= 0 || n > 65535 {
				fmt.Fprintf(p.Stderr, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line 2\n>>> 'port \"%s\"'\nargument couldn't be parsed into an integer\n", version, args[i+1])
				return 1
			}
			port, configured = n, true
			i++
		case a == "--requirepass" && i+1 < len(args):
			pass, configured = args[i+1], true
			i++
		default:
			configured = true
		}
	}
	at := p.Clock.Now().UTC().Format("02 Jan 2006 15:04:05.000")
	logf := func(role, level, format string, a ...any) {
		fmt.Fprintf(p.Stdout, "1:%s %s %s %s\n", role, at, level, fmt.Sprintf(format, a...))
	}
	logf("C", "#", "WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition. "+
		"Being disabled, it can also cause failures without low memory condition, see https://github.com/jemalloc/jemalloc/issues/1328. "+
		"To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.")
	logf("C", "*", "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	logf("C", "*", "Redis version=%s, bits=64, commit=00000000, modified=0, pid=1, just started", version)
	if configured {
		logf("C", "*", "Configuration loaded")
	} else {
		logf("C", "#", "Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf")
	}
	logf("M", "*", "monotonic clock: POSIX clock_gettime")
	logf("M", "*", "Running mode=standalone, port=%d.", port)
	logf("M", "*", "Server initialized")
	logf("M", "*", "Ready to accept connections tcp")
	h.Listen(port, redisServerProto{version: version, port: port, password: pass})
	return serveUntilKilled(ctx, p)
}

// redisServerProto answers RESP (and inline commands, as `echo PING | nc`
// sends): PING, ECHO, SET, GET, DEL, EXISTS, INCR, DECR, INCRBY, KEYS,
// DBSIZE, FLUSHALL, FLUSHDB, SELECT, AUTH, INFO, CLIENT, COMMAND, HELLO,
// QUIT; any other is redis's unknown command error.
type redisServerProto struct {
	version  string
	port     int
	password string
}

func (s redisServerProto) Serve(c *Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	authed := s.password == ""
	for {
		args, err := readRESP(br)
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(c, "-ERR Protocol error: %v\r\n", err)
			}
			return
		}
		if len(args) == 0 {
			continue
		}
		name := strings.ToUpper(args[0])
		if !authed && name != "AUTH" && name != "HELLO" && name != "QUIT" {
			io.WriteString(c, "-NOAUTH Authentication required.\r\n")
			continue
		}
		reply, quit := s.command(c, name, args, &authed)
		if _, err := io.WriteString(c, reply); err != nil || quit {
			return
		}
	}
}

// command answers one command.
func (s redisServerProto) command(c *Conn, name string, args []string, authed *bool) (string, bool) {
	arity := func(n int) bool { return len(args) >= n }
	wrongArgs := fmt.Sprintf("-ERR wrong number of arguments for '%s' command\r\n", strings.ToLower(args[0]))
	var reply string
	switch name {
	case "PING":
		switch len(args) {
		case 1:
			return "+PONG\r\n", false
		case 2:
			return bulk(args[1]), false
		}
		return wrongArgs, false
	case "ECHO":
		if len(args) != 2 {
			return wrongArgs, false
		}
		return bulk(args[1]), false
	case "QUIT":
		return "+OK\r\n", true
	case "AUTH":
		switch {
		case !arity(2):
			return wrongArgs, false
		case s.password == "":
			return "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n", false
		case args[len(args)-1] != s.password:
			return "-WRONGPASS invalid username-password pair or user is disabled.\r\n", false
		}
		*authed = true
		return "+OK\r\n", false
	case "SELECT", "FLUSHALL", "FLUSHDB":
		if name != "SELECT" {
			c.Memory.with(func(kv map[string]string) { clear(kv) })
		}
		return "+OK\r\n", false
	case "SET":
		if !arity(3) {
			return wrongArgs, false
		}
		nx, xx := false, false
		for _, o := range args[3:] {
			switch strings.ToUpper(o) {
			case "NX":
				nx = true
			case "XX":
				xx = true
			}
		}
		reply = "+OK\r\n"
		c.Memory.with(func(kv map[string]string) {
			_, exists := kv[args[1]]
			if nx && exists || xx && !exists {
				reply = "$-1\r\n"
				return
			}
			kv[args[1]] = args[2]
		})
		return reply, false
	case "GET":
		if len(args) != 2 {
			return wrongArgs, false
		}
		reply = "$-1\r\n"
		c.Memory.with(func(kv map[string]string) {
			if v, ok := kv[args[1]]; ok {
				reply = bulk(v)
			}
		})
		return reply, false
	case "DEL", "EXISTS":
		if !arity(2) {
			return wrongArgs, false
		}
		n := 0
		c.Memory.with(func(kv map[string]string) {
			for _, k := range args[1:] {
				if _, ok := kv[k]; ok {
					n++
					if name == "DEL" {
						delete(kv, k)
					}
				}
			}
		})
		return fmt.Sprintf(":%d\r\n", n), false
	case "INCR", "DECR", "INCRBY", "DECRBY":
		by := int64(1)
		if name == "INCRBY" || name == "DECRBY" {
			if len(args) != 3 {
				return wrongArgs, false
			}
			n, err := strconv.ParseInt(args[2], 10, 64)
			if err != nil {
				return "-ERR value is not an integer or out of range\r\n", false
			}
			by = n
		} else if len(args) != 2 {
			return wrongArgs, false
		}
		if strings.HasPrefix(name, "DECR") {
			by = -by
		}
		c.Memory.with(func(kv map[string]string) {
			n := int64(0)
			if v, ok := kv[args[1]]; ok {
				var err error
				if n, err = strconv.ParseInt(v, 10, 64); err != nil {
					reply = "-ERR value is not an integer or out of range\r\n"
					return
				}
			}
			n += by
			kv[args[1]] = strconv.FormatInt(n, 10)
			reply = fmt.Sprintf(":%d\r\n", n)
		})
		return reply, false
	case "KEYS":
		if len(args) != 2 {
			return wrongArgs, false
		}
		var keys []string
		c.Memory.with(func(kv map[string]string) {
			for k := range kv {
				if ok, _ := path.Match(args[1], k); ok {
					keys = append(keys, k)
				}
			}
		})
		sort.Strings(keys)
		return array(keys), false
	case "DBSIZE":
		n := 0
		c.Memory.with(func(kv map[string]string) { n = len(kv) })
		return fmt.Sprintf(":%d\r\n", n), false
	case "INFO":
		return bulk(fmt.Sprintf("# Server\r\nredis_version:%s\r\nredis_mode:standalone\r\nos:Linux 6.8.0-kubesim x86_64\r\narch_bits:64\r\nprocess_id:1\r\ntcp_port:%d\r\n\r\n# Replication\r\nrole:master\r\nconnected_slaves:0\r\n",
			s.version, s.port)), false
	case "CLIENT":
		if arity(2) && strings.EqualFold(args[1], "ID") {
			return ":3\r\n", false
		}
		return "+OK\r\n", false
	case "COMMAND":
		return "*0\r\n", false
	case "HELLO":
		return "*14\r\n" + bulk("server") + bulk("redis") + bulk("version") + bulk(s.version) + bulk("proto") + ":2\r\n" +
			bulk("id") + ":3\r\n" + bulk("mode") + bulk("standalone") + bulk("role") + bulk("master") + bulk("modules") + "*0\r\n", false
	}
	var quoted []string
	for _, a := range args[1:] {
		quoted = append(quoted, "'"+a+"' ")
	}
	return fmt.Sprintf("-ERR unknown command '%s', with args beginning with: %s\r\n", args[0], strings.Join(quoted, "")), false
}

// bulk is a RESP bulk string.
func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

// array is a RESP array of bulk strings.
func array(items []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(items))
	for _, s := range items {
		b.WriteString(bulk(s))
	}
	return b.String()
}

// readRESP reads one command: an array of bulk strings, or an inline
// command (words on a line).
func readRESP(br *bufio.Reader) ([]string, error) {
	line, err := readLine(br)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return strings.Fields(line), nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 || n > 1024 {
		return nil, fmt.Errorf("invalid multibulk length")
	}
	args := make([]string, 0, n)
	for range n {
		head, err := readLine(br)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(head, "$") {
			return nil, fmt.Errorf("expected '$', got '%c'", head[0])
		}
		size, err := strconv.Atoi(head[1:])
		if err != nil || size < 0 || size > 1<<20 {
			return nil, fmt.Errorf("invalid bulk length")
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		args = append(args, string(buf[:size]))
	}
	return args, nil
}

// readLine reads a line ended by CRLF (or LF), without its end.
func readLine(br *bufio.Reader) (string, error) {
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case err != nil && line == "":
			return "", err
		case line != "":
			return line, nil
		}
	}
}
