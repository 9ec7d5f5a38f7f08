package etcdstore

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kubesim/kubesim/store"
)

// Config configures a Store. Endpoints is required.
type Config struct {
	// Endpoints are etcd's client URLs (kube-apiserver's --etcd-servers).
	Endpoints []string
	// TLS, when set, is used to reach etcd (--etcd-cafile, --etcd-certfile,
	// --etcd-keyfile).
	TLS *tls.Config
	// Prefix is put before every key (--etcd-prefix); it must not be
	// empty, so that kubesim never writes at etcd's root.
	Prefix string
	// DialTimeout bounds the first connection (default 5 s): etcd
	// unreachable at start is an error naming the endpoints within it.
	DialTimeout time.Duration
	// RequestTimeout bounds each request (default 10 s).
	RequestTimeout time.Duration
	// Watch sizes the event window and the watcher buffers.
	Watch store.BroadcasterConfig
	// Logger receives the store's few log lines (default: discard).
	Logger *slog.Logger
}

// Store is the etcd backend of store.Interface.
type Store struct {
	cfg    Config
	client *clientv3.Client
	hub    *store.Broadcaster

	// rev is the last revision published to the hub; published is
	// signalled (closed and replaced) every time it moves.
	mu        sync.Mutex
	published chan struct{}
	rev       atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
	closed atomic.Bool
}

var _ store.Interface = (*Store)(nil)

// Open connects to etcd, reads its current revision and starts the watch
// that feeds the store's watchers.
func Open(cfg Config) (*Store, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcdstore: no etcd endpoints")
	}
	if cfg.Prefix == "" || !strings.HasPrefix(cfg.Prefix, "/") {
		return nil, fmt.Errorf("etcdstore: prefix %q must start with /", cfg.Prefix)
	}
	cfg.Prefix = strings.TrimSuffix(cfg.Prefix, "/")
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// The client's own logger (zap, the etcd client's logging API) is
	// silenced: it would print JSON retries beside kubesim's logs, and
	// what matters reaches the caller as this store's errors.
	cli, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: cfg.DialTimeout, TLS: cfg.TLS,
		Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("etcd at %s: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	// The client dials lazily: one request, bounded, says whether etcd is
	// there at all.
	ctx, cancel := context.WithTimeout(context.Background(), cfg.DialTimeout)
	resp, err := cli.Get(ctx, cfg.Prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	cancel()
	if err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("etcd at %s is unreachable: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	rev := resp.Header.Revision
	wctx, wcancel := context.WithCancel(context.Background())
	s := &Store{cfg: cfg, client: cli, hub: store.NewBroadcaster(cfg.Watch, rev),
		published: make(chan struct{}), cancel: wcancel, done: make(chan struct{})}
	s.rev.Store(rev)
	go s.follow(wctx, rev)
	return s, nil
}

func (s *Store) key(k string) string { return s.cfg.Prefix + k }

// follow reads etcd's watch of the prefix from revision after, publishing
// every event to the hub in order, until the store closes.
func (s *Store) follow(ctx context.Context, after int64) {
	defer close(s.done)
	for ctx.Err() == nil {
		wch := s.client.Watch(clientv3.WithRequireLeader(ctx), s.cfg.Prefix+"/",
			clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(after+1))
		for resp := range wch {
			if resp.CompactRevision != 0 {
				// etcd dropped history this stream still needed: every watcher
				// must relist; the stream starts again at the compaction.
				s.cfg.Logger.Error("etcd compacted history the watch needed; watchers relist", "compacted", resp.CompactRevision)
				s.hub.Reset(resp.CompactRevision, fmt.Sprintf("etcd compacted revision %d", resp.CompactRevision))
				after = resp.CompactRevision
				s.advance(after)
				break
			}
			if err := resp.Err(); err != nil {
				s.cfg.Logger.Warn("etcd watch interrupted; resuming", "err", err)
				break
			}
			events := make([]store.Event, 0, len(resp.Events))
			for _, ev := range resp.Events {
				events = append(events, s.event(ev))
			}
			if len(events) > 0 {
				s.hub.Publish(events...)
				after = events[len(events)-1].Revision
				s.advance(after)
			}
		}
		if ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond) // etcd is away: do not spin
		}
	}
}

// advance records that the hub has everything up to rev.
func (s *Store) advance(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev > s.rev.Load() {
		s.rev.Store(rev)
		close(s.published)
		s.published = make(chan struct{})
	}
}

// waitPublished returns once the hub has published rev (so the writer's
// own watchers already hold its event), or when waiting longer would only
// delay the reply: the write is committed either way.
func (s *Store) waitPublished(rev int64) {
	deadline := time.After(s.cfg.RequestTimeout)
	for {
		s.mu.Lock()
		ch, have := s.published, s.rev.Load()
		s.mu.Unlock()
		if have >= rev || s.closed.Load() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			s.cfg.Logger.Warn("a committed write's event is late from etcd's watch", "revision", rev)
			return
		}
	}
}

func (s *Store) event(ev *clientv3.Event) store.Event {
	key := strings.TrimPrefix(string(ev.Kv.Key), s.cfg.Prefix)
	if ev.Type == mvccpb.DELETE {
		out := store.Event{Type: store.Deleted, Key: key, Revision: ev.Kv.ModRevision}
		if ev.PrevKv != nil {
			uid, value := decode(ev.PrevKv.Value)
			out.Value, out.PrevValue, out.UID, out.CreateRevision = value, value, uid, ev.PrevKv.CreateRevision
			out.PrevModRevision = ev.PrevKv.ModRevision
		}
		return out
	}
	uid, value := decode(ev.Kv.Value)
	out := store.Event{Type: store.Modified, Key: key, Value: value, UID: uid, CreateRevision: ev.Kv.CreateRevision, Revision: ev.Kv.ModRevision}
	if ev.IsCreate() {
		out.Type = store.Added
	} else if ev.PrevKv != nil {
		_, out.PrevValue = decode(ev.PrevKv.Value)
		out.PrevModRevision = ev.PrevKv.ModRevision
	}
	return out
}

// encode puts the uid before the value: uvarint length, uid, value.
func encode(uid string, value []byte) string {
	buf := make([]byte, binary.MaxVarintLen64+len(uid)+len(value))
	n := binary.PutUvarint(buf, uint64(len(uid)))
	n += copy(buf[n:], uid)
	n += copy(buf[n:], value)
	return string(buf[:n])
}

// decode splits a stored envelope; a damaged one comes back with no value
// (store.KeyValue's contract for a value that fails its integrity check).
func decode(b []byte) (uid string, value []byte) {
	l, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < l {
		return "", nil
	}
	return string(b[n : n+int(l)]), b[n+int(l):]
}

func (s *Store) kv(key string, k *mvccpb.KeyValue) store.KeyValue {
	uid, value := decode(k.Value)
	return store.KeyValue{Key: key, Value: value, UID: uid, CreateRevision: k.CreateRevision, ModRevision: k.ModRevision}
}

// request bounds one call to etcd and refuses calls after Close.
func (s *Store) request(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if s.closed.Load() {
		return nil, nil, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	c, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	return c, cancel, nil
}

// unavailable wraps an etcd failure so that the API server answers 503
// ("etcdserver: request timed out" and the like are etcd's words).
func (s *Store) unavailable(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded {
		// etcd did not answer in time: the API server answers as
		// kube-apiserver's timeout does (504).
		return &store.UnavailableError{Err: context.DeadlineExceeded}
	}
	return &store.UnavailableError{Err: rpctypes.Error(err)}
}

// Create implements store.Interface.
func (s *Store) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	c, cancel, err := s.request(ctx)
	if err != nil {
		return store.KeyValue{}, err
	}
	defer cancel()
	k := s.key(key)
	resp, err := s.client.Txn(c).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, encode(opts.UID, value))).
		Commit()
	if err != nil {
		return store.KeyValue{}, s.unavailable(err)
	}
	if !resp.Succeeded {
		return store.KeyValue{}, &store.KeyError{Err: store.ErrKeyExists, Key: key}
	}
	rev := resp.Header.Revision
	s.waitPublished(rev)
	return store.KeyValue{Key: key, Value: value, UID: opts.UID, CreateRevision: rev, ModRevision: rev}, nil
}

// Get implements store.Interface.
func (s *Store) Get(ctx context.Context, key string) (store.KeyValue, error) {
	c, cancel, err := s.request(ctx)
	if err != nil {
		return store.KeyValue{}, err
	}
	defer cancel()
	resp, err := s.client.Get(c, s.key(key))
	if err != nil {
		return store.KeyValue{}, s.unavailable(err)
	}
	if len(resp.Kvs) == 0 {
		return store.KeyValue{}, &store.KeyError{Err: store.ErrNotFound, Key: key}
	}
	return s.kv(key, resp.Kvs[0]), nil
}

// checkPreconditions is boltstore's, on what etcd returned.
func checkPreconditions(key string, cur store.KeyValue, pre store.Preconditions) error {
	if pre.UID != "" && pre.UID != cur.UID {
		return &store.KeyError{Err: store.ErrConflict, Key: key,
			Detail: fmt.Sprintf("uid is %s, precondition wants %s", cur.UID, pre.UID)}
	}
	if pre.ResourceVersion != 0 && pre.ResourceVersion != cur.ModRevision {
		return &store.KeyError{Err: store.ErrConflict, Key: key,
			Detail: fmt.Sprintf("revision is %d, precondition wants %d", cur.ModRevision, pre.ResourceVersion)}
	}
	return nil
}

// Update implements store.Interface: read, check, compare-and-swap on the
// mod revision read.
func (s *Store) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	cur, rev, err := s.compareAndSwap(ctx, key, pre, func(k string, cur store.KeyValue) clientv3.Op {
		return clientv3.OpPut(k, encode(cur.UID, value))
	})
	if err != nil {
		return store.KeyValue{}, err
	}
	return store.KeyValue{Key: key, Value: value, UID: cur.UID, CreateRevision: cur.CreateRevision, ModRevision: rev}, nil
}

// Delete implements store.Interface.
func (s *Store) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	cur, rev, err := s.compareAndSwap(ctx, key, pre, func(k string, _ store.KeyValue) clientv3.Op { return clientv3.OpDelete(k) })
	if err != nil {
		return store.KeyValue{}, err
	}
	cur.ModRevision = rev
	return cur, nil
}

// compareAndSwap reads key, checks pre against it, and commits the
// operation op makes only if the key's mod revision is still the one read;
// when another writer came between, it reads again and re-checks (a caller
// that gave a resourceVersion then gets its conflict). It returns what was
// read and the revision of the commit, once published to the hub.
func (s *Store) compareAndSwap(ctx context.Context, key string, pre store.Preconditions, op func(k string, cur store.KeyValue) clientv3.Op) (store.KeyValue, int64, error) {
	for {
		cur, err := s.Get(ctx, key)
		if err != nil {
			return store.KeyValue{}, 0, err
		}
		if err := checkPreconditions(key, cur, pre); err != nil {
			return store.KeyValue{}, 0, err
		}
		c, cancel, err := s.request(ctx)
		if err != nil {
			return store.KeyValue{}, 0, err
		}
		k := s.key(key)
		resp, err := s.client.Txn(c).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", cur.ModRevision)).
			Then(op(k, cur)).
			Commit()
		cancel()
		if err != nil {
			return store.KeyValue{}, 0, s.unavailable(err)
		}
		if !resp.Succeeded {
			continue
		}
		rev := resp.Header.Revision
		s.waitPublished(rev)
		return cur, rev, nil
	}
}

// List implements store.Interface: one range read, at one revision.
func (s *Store) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	c, cancel, err := s.request(ctx)
	if err != nil {
		return store.ListResult{}, err
	}
	defer cancel()
	start, end := s.key(prefix), clientv3.GetPrefixRangeEnd(s.key(prefix))
	if opts.StartAfter != "" && s.key(opts.StartAfter) >= start {
		start = s.key(opts.StartAfter) + "\x00"
	}
	ops := []clientv3.OpOption{clientv3.WithRange(end)}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	if opts.Revision != 0 {
		ops = append(ops, clientv3.WithRev(opts.Revision))
	}
	resp, err := s.client.Get(c, start, ops...)
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return store.ListResult{}, &store.ExpiredError{Requested: opts.Revision,
			Reason: fmt.Sprintf("revision %d is compacted: %v", opts.Revision, err)}
	case errors.Is(err, rpctypes.ErrFutureRev):
		return store.ListResult{}, fmt.Errorf("list at revision %d: %w", opts.Revision, store.ErrFutureRevision)
	case err != nil:
		return store.ListResult{}, s.unavailable(err)
	}
	res := store.ListResult{Revision: resp.Header.Revision, More: resp.More}
	if opts.Revision != 0 {
		res.Revision = opts.Revision
	}
	for _, k := range resp.Kvs {
		res.Items = append(res.Items, s.kv(strings.TrimPrefix(string(k.Key), s.cfg.Prefix), k))
	}
	return res, nil
}

// Watch implements store.Interface, from the hub that etcd's watch feeds.
func (s *Store) Watch(ctx context.Context, prefix string, fromRevision int64) (store.Watcher, error) {
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.hub.Watch(ctx, prefix, fromRevision)
}

// Revision implements store.Interface: the last revision whose events
// this store has published (its own writes wait for theirs).
func (s *Store) Revision() int64 { return s.rev.Load() }

// Compact implements store.Interface with etcd's compaction (the history
// of the whole etcd, as kube-apiserver's compactor does) and the hub's.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	c, cancel, err := s.request(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	if _, err := s.client.Compact(c, revision); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return s.unavailable(err)
	}
	s.hub.Compact(revision)
	return nil
}

// Close implements store.Interface: later calls fail with ErrClosed,
// watches end with it, and the connection closes.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.cancel()
	<-s.done
	s.hub.Close()
	return s.client.Close()
}

// SharedBetweenServers tells the API server's allocators that other API
// servers write this etcd too (kinds.SharedStore): they claim each
// address in etcd rather than trust their own memory.
func (s *Store) SharedBetweenServers() bool { return true }

// DBSize implements store.Sizer: the database size the first endpoint
// that answers reports (its maintenance Status), and the cluster's ID.
func (s *Store) DBSize(ctx context.Context) (int64, string, error) {
	ctx, cancel, err := s.request(ctx)
	if err != nil {
		return 0, "", err
	}
	defer cancel()
	var errs []error
	for _, ep := range s.cfg.Endpoints {
		st, err := s.client.Status(ctx, ep)
		if err == nil {
			return st.DbSize, strconv.FormatUint(st.Header.GetClusterId(), 16), nil
		}
		errs = append(errs, err)
	}
	return 0, "", errors.Join(errs...)
}
