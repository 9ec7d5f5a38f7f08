package programs

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// mongo's image: docker-entrypoint.sh puts mongod before options (the
// port-forward tutorial's `args: [--bind_ip, 0.0.0.0]`), and mongod
// answers MongoDB's wire protocol on port 27017 (or --port): the
// handshake a driver or mongosh sends, ping, buildInfo and the other
// commands a client asks first.
var mongoImage = Image{Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"mongod"}, Shell: true, Bash: true,
	programs: map[string]Program{
		"docker-entrypoint.sh": entrypoint("mongod", nil),
		"mongod":               mongod,
	}}

// mongoVersions are the last releases of the branches a tag may name.
var mongoVersions = map[string]string{
	"4": "4.4.29", "4.2": "4.2.24", "4.4": "4.4.29", "5": "5.0.31", "5.0": "5.0.31", "6": "6.0.20", "6.0": "6.0.20",
	"7": "7.0.16", "7.0": "7.0.16", "8": "8.0.4", "8.0": "8.0.4",
}

func mongoVersion(tag string) string {
	v, _, _ := strings.Cut(tag, "-")
	if strings.Count(v, ".") == 2 && strings.Trim(v, "0123456789.") == "" {
		return v
	}
	if full, ok := mongoVersions[v]; ok {
		return full
	}
	return "8.0.4"
}

// mongoWireVersions are the wire protocol versions a release speaks (the
// hello answer's maxWireVersion), by major.minor.
var mongoWireVersions = map[string]int32{"4.2": 8, "4.4": 9, "5.0": 13, "6.0": 17, "7.0": 21, "8.0": 25}

// mongod is MongoDB's server: its start-up log (plain text up to 4.2,
// JSON lines from 4.4), then the wire protocol on its port until killed.
func mongod(ctx context.Context, r Run) int {
	p, h, version := r.Process, r.Host, mongoVersion(r.Tag)
	port, bind := 27017, "127.0.0.1"
	args := p.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, bool) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
				return v, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch name, _, _ := strings.Cut(a, "="); name {
		case "--version":
			fmt.Fprintf(p.Stdout, "db version v%s\nBuild Info: {\n    \"version\": \"%s\"\n}\n", version, version)
			return 0
		case "--port":
			v, _ := value()
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 65535 {
				fmt.Fprintf(p.Stderr, "Error parsing command line: the argument ('%s') for option '--port' is invalid\ntry 'mongod --help' for more information\n", v)
				return 2
			}
			port = n
		case "--bind_ip", "--bind-ip":
			bind, _ = value()
		case "--bind_ip_all":
			bind = "0.0.0.0"
		}
	}
	host := p.Getenv("HOSTNAME")
	now := p.Clock.Now().UTC()
	legacy := strings.HasPrefix(version, "4.2") || strings.HasPrefix(version, "4.0")
	if legacy {
		ts := now.Format("2006-01-02T15:04:05.000-0700")
		for _, l := range []string{
			"I  CONTROL  [main] Automatically disabling TLS 1.0, to force-enable TLS 1.0 specify --sslDisabledProtocols 'none'",
			fmt.Sprintf("I  CONTROL  [initandlisten] MongoDB starting : pid=1 port=%d dbpath=/data/db 64-bit host=%s", port, host),
			"I  CONTROL  [initandlisten] db version v" + version,
			fmt.Sprintf("I  CONTROL  [initandlisten] options: { net: { bindIp: \"%s\", port: %d } }", bind, port),
			"I  STORAGE  [initandlisten] createCollection: admin.system.version with provided UUID",
			fmt.Sprintf("I  NETWORK  [listener] Listening on /tmp/mongodb-%d.sock", port),
			"I  NETWORK  [listener] Listening on " + bind,
			fmt.Sprintf("I  NETWORK  [listener] waiting for connections on port %d", port),
		} {
			fmt.Fprintf(p.Stdout, "%s %s\n", ts, l)
		}
	} else {
		ts := now.Format("2006-01-02T15:04:05.000-07:00")
		line := func(component string, id int, ctx, msg, attr string) {
			fmt.Fprintf(p.Stdout, `{"t":{"$date":"%s"},"s":"I",  "c":"%s", "id":%d, "ctx":"%s","msg":"%s","attr":%s}`+"\n", ts, component, id, ctx, msg, attr)
		}
		line("CONTROL", 4615611, "initandlisten", "MongoDB starting",
			fmt.Sprintf(`{"pid":1,"port":%d,"dbPath":"/data/db","architecture":"64-bit","host":"%s"}`, port, host))
		line("CONTROL", 23403, "initandlisten", "Build Info", fmt.Sprintf(`{"buildInfo":{"version":"%s"}}`, version))
		line("CONTROL", 21951, "initandlisten", "Options set by command line", fmt.Sprintf(`{"options":{"net":{"bindIp":"%s","port":%d}}}`, bind, port))
		line("NETWORK", 23015, "listener", "Listening on", fmt.Sprintf(`{"address":"/tmp/mongodb-%d.sock"}`, port))
		line("NETWORK", 23015, "listener", "Listening on", fmt.Sprintf(`{"address":"%s"}`, bind))
		line("NETWORK", 23016, "listener", "Waiting for connections", fmt.Sprintf(`{"port":%d,"ssl":"off"}`, port))
	}
	h.Listen(port, &mongoServer{version: version, legacyLog: legacy, argv: p.Args, bind: bind, port: port, host: host})
	return serveUntilKilled(ctx, p)
}

// The wire protocol's opcodes kubesim answers.
const (
	opReply = 1
	opQuery = 2004
	opMsg   = 2013
)

// mongoServer answers the wire protocol: OP_MSG, and the legacy OP_QUERY
// a driver's first hello may use (answered with OP_REPLY).
type mongoServer struct {
	version, bind, host string
	legacyLog           bool
	argv                []string
	port                int
	connections         atomic.Int32
}

func (s *mongoServer) Serve(c *Conn) {
	defer c.Close()
	id := s.connections.Add(1)
	remote := "127.0.0.1:0"
	if a := c.RemoteAddr(); a != nil {
		remote = a.String()
	}
	if s.legacyLog {
		c.Log(fmt.Sprintf("%s I  NETWORK  [listener] connection accepted from %s #%d (1 connection now open)",
			c.Now().UTC().Format("2006-01-02T15:04:05.000-0700"), remote, id))
	} else {
		c.Log(fmt.Sprintf(`{"t":{"$date":"%s"},"s":"I",  "c":"NETWORK", "id":22943, "ctx":"listener","msg":"Connection accepted","attr":{"remote":"%s","connectionId":%d,"connectionCount":1}}`,
			c.Now().UTC().Format("2006-01-02T15:04:05.000-07:00"), remote, id))
	}
	var requestID int32
	for {
		head := make([]byte, 16)
		if _, err := io.ReadFull(c, head); err != nil {
			return
		}
		size := int(int32(binary.LittleEndian.Uint32(head)))
		if size < 16 || size > 48000000 {
			return
		}
		body := make([]byte, size-16)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		reqID := int32(binary.LittleEndian.Uint32(head[4:]))
		op := int32(binary.LittleEndian.Uint32(head[12:]))
		var cmd bsonDoc
		var err error
		switch op {
		case opMsg:
			cmd, err = msgCommand(body)
		case opQuery:
			cmd, err = queryCommand(body)
		default:
			return // an opcode mongod no longer speaks closes the connection
		}
		if err != nil {
			return
		}
		reply := encodeBSON(s.command(c, cmd, id))
		requestID++
		var msg []byte
		if op == opMsg {
			msg = binary.LittleEndian.AppendUint32(nil, 0) // flagBits
			msg = append(msg, 0)                           // a body section
			msg = append(msg, reply...)
		} else {
			msg = binary.LittleEndian.AppendUint32(nil, 0) // responseFlags
			msg = binary.LittleEndian.AppendUint64(msg, 0) // cursorID
			msg = binary.LittleEndian.AppendUint32(msg, 0) // startingFrom
			msg = binary.LittleEndian.AppendUint32(msg, 1) // numberReturned
			msg = append(msg, reply...)
		}
		out := binary.LittleEndian.AppendUint32(nil, uint32(16+len(msg)))
		out = binary.LittleEndian.AppendUint32(out, uint32(requestID))
		out = binary.LittleEndian.AppendUint32(out, uint32(reqID))
		replyOp := int32(opMsg)
		if op == opQuery {
			replyOp = opReply
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(replyOp))
		if _, err := c.Write(append(out, msg...)); err != nil {
			return
		}
	}
}

// msgCommand reads an OP_MSG's command: its body section (kind 0); the
// document sequences of kind 1 are skipped.
func msgCommand(b []byte) (bsonDoc, error) {
	if len(b) < 5 {
		return nil, errBSON
	}
	flags := binary.LittleEndian.Uint32(b)
	p := b[4:]
	if flags&1 != 0 && len(p) >= 4 {
		p = p[:len(p)-4] // the checksum
	}
	var cmd bsonDoc
	for len(p) > 0 {
		kind := p[0]
		p = p[1:]
		switch kind {
		case 0:
			d, n, err := decodeBSON(p)
			if err != nil {
				return nil, err
			}
			cmd, p = d, p[n:]
		case 1:
			if len(p) < 4 {
				return nil, errBSON
			}
			n := int(int32(binary.LittleEndian.Uint32(p)))
			if n < 4 || n > len(p) {
				return nil, errBSON
			}
			p = p[n:]
		default:
			return nil, errBSON
		}
	}
	if cmd == nil {
		return nil, errBSON
	}
	return cmd, nil
}

// queryCommand reads an OP_QUERY's command (on DB.$cmd), unwrapped from
// {$query: …} if a driver wrapped it.
func queryCommand(b []byte) (bsonDoc, error) {
	if len(b) < 4 {
		return nil, errBSON
	}
	_, rest, ok := cutCString(b[4:])
	if !ok || len(rest) < 8 {
		return nil, errBSON
	}
	d, _, err := decodeBSON(rest[8:])
	if err != nil {
		return nil, err
	}
	if q, ok := d.get("$query").(bsonDoc); ok {
		return q, nil
	}
	if q, ok := d.get("query").(bsonDoc); ok {
		return q, nil
	}
	return d, nil
}

// command answers one command, named by the document's first key.
func (s *mongoServer) command(c *Conn, cmd bsonDoc, conn int32) bsonDoc {
	if len(cmd) == 0 {
		return mongoError("no such command: ''", 59, "CommandNotFound")
	}
	name := cmd[0].Key
	ok := bsonElem{"ok", 1.0}
	major, minor, patch := versionParts(s.version)
	switch strings.ToLower(name) {
	case "hello", "ismaster":
		primary := "isWritablePrimary"
		if strings.ToLower(name) == "ismaster" {
			primary = "ismaster"
		}
		d := bsonDoc{}
		if v, _ := cmd.get("helloOk").(bool); v {
			d = append(d, bsonElem{"helloOk", true})
		}
		return append(d,
			bsonElem{primary, true},
			bsonElem{"topologyVersion", bsonDoc{{"processId", bsonObjectID{0x6b, 0x75, 0x62, 0x65, 0x73, 0x69, 0x6d}}, {"counter", int64(0)}}},
			bsonElem{"maxBsonObjectSize", int32(16777216)},
			bsonElem{"maxMessageSizeBytes", int32(48000000)},
			bsonElem{"maxWriteBatchSize", int32(100000)},
			bsonElem{"localTime", c.Now().UTC()},
			bsonElem{"logicalSessionTimeoutMinutes", int32(30)},
			bsonElem{"connectionId", conn},
			bsonElem{"minWireVersion", int32(0)},
			bsonElem{"maxWireVersion", s.wireVersion()},
			bsonElem{"readOnly", false},
			ok)
	case "ping", "endsessions", "killcursors", "logout", "saslstart":
		return bsonDoc{ok}
	case "buildinfo":
		return bsonDoc{{"version", s.version}, {"gitVersion", "0000000000000000000000000000000000000000"},
			{"versionArray", []any{int32(major), int32(minor), int32(patch), int32(0)}}, {"bits", int32(64)},
			{"debug", false}, {"maxBsonObjectSize", int32(16777216)}, {"modules", []any{}}, ok}
	case "getcmdlineopts":
		argv := make([]any, len(s.argv))
		for i, a := range s.argv {
			argv[i] = a
		}
		return bsonDoc{{"argv", argv}, {"parsed", bsonDoc{{"net", bsonDoc{{"bindIp", s.bind}, {"port", int32(s.port)}}}}}, ok}
	case "getparameter":
		return bsonDoc{{"featureCompatibilityVersion", bsonDoc{{"version", fmt.Sprintf("%d.%d", major, minor)}}}, ok}
	case "getlog":
		return bsonDoc{{"totalLinesWritten", int32(0)}, {"log", []any{}}, ok}
	case "hostinfo":
		return bsonDoc{{"system", bsonDoc{{"hostname", s.host}, {"cpuArch", "x86_64"}, {"numCores", int32(4)}}}, ok}
	case "connectionstatus":
		return bsonDoc{{"authInfo", bsonDoc{{"authenticatedUsers", []any{}}, {"authenticatedUserRoles", []any{}}}}, ok}
	case "listdatabases":
		var dbs []any
		for _, n := range []string{"admin", "config", "local"} {
			dbs = append(dbs, bsonDoc{{"name", n}, {"sizeOnDisk", int64(40960)}, {"empty", false}})
		}
		return bsonDoc{{"databases", dbs}, {"totalSize", int64(122880)}, {"totalSizeMb", int64(0)}, ok}
	case "serverstatus":
		return bsonDoc{{"host", s.host}, {"version", s.version}, {"process", "mongod"}, {"pid", int64(1)},
			{"uptime", 1.0}, {"localTime", c.Now().UTC()}, ok}
	}
	return mongoError(fmt.Sprintf("no such command: '%s'", name), 59, "CommandNotFound")
}

func (s *mongoServer) wireVersion() int32 {
	major, minor, _ := versionParts(s.version)
	if v, ok := mongoWireVersions[fmt.Sprintf("%d.%d", major, minor)]; ok {
		return v
	}
	return 25
}

func mongoError(msg string, code int32, codeName string) bsonDoc {
	return bsonDoc{{"ok", 0.0}, {"errmsg", msg}, {"code", code}, {"codeName", codeName}}
}

// versionParts splits "4.2.24" into its numbers.
func versionParts(v string) (major, minor, patch int) {
	parts := strings.SplitN(v, ".", 3)
	nums := make([]int, 3)
	for i, p := range parts {
		nums[i], _ = strconv.Atoi(p)
	}
	return nums[0], nums[1], nums[2]
}
