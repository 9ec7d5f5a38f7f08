package csi

import (
	"context"
	"errors"
	"strings"
	"time"

	csipb "github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/kubesim/kubesim/clock"
)

// ErrDeadlineExceeded is a call that got no answer in time, in gRPC's
// words: what the kubelet and the sidecars see when their context ends.
var ErrDeadlineExceeded = status.Error(codes.DeadlineExceeded, "context deadline exceeded")

// Conn is a connection to one driver's socket: its Identity, Controller
// and Node services.
type Conn struct {
	cc         *grpc.ClientConn
	Identity   csipb.IdentityClient
	Controller csipb.ControllerClient
	Node       csipb.NodeClient
}

// Dial connects to the unix socket at endpoint (a path, or
// "unix://path"). The connection is made at the first call.
func Dial(endpoint string) (*Conn, error) {
	if !strings.HasPrefix(endpoint, "unix://") {
		endpoint = "unix://" + endpoint
	}
	cc, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &Conn{cc: cc, Identity: csipb.NewIdentityClient(cc), Controller: csipb.NewControllerClient(cc), Node: csipb.NewNodeClient(cc)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.cc.Close() }

// Caller makes calls with a deadline on the injected clock and tells the
// step trace of each.
type Caller struct {
	// Clock times the deadline (required).
	Clock clock.Clock
	// Timeout is the deadline of one call.
	Timeout time.Duration
	// OnCall, when set, is told of each call before it is made, as
	// "NodeStageVolume example.csi.kubesim.io pvc-1": the step trace
	// shows it.
	OnCall func(call string)
}

// Call runs call with a context that ends after c.Timeout on c.Clock (a
// gRPC deadline would use the wall clock, which step mode and the tests
// do not move), reporting that end as ErrDeadlineExceeded. what names the
// call for OnCall.
func Call[T any](ctx context.Context, c Caller, what string, call func(context.Context) (T, error)) (T, error) {
	if c.OnCall != nil {
		c.OnCall(what)
	}
	ctx, cancel := clock.WithTimeout(ctx, c.Clock, c.Timeout, ErrDeadlineExceeded)
	defer cancel()
	res, err := call(ctx)
	if err != nil && errors.Is(context.Cause(ctx), ErrDeadlineExceeded) {
		var zero T
		return zero, ErrDeadlineExceeded
	}
	return res, err
}
