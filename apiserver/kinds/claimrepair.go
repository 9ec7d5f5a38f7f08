package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// Where the claims of sharedclaims.go live, one key per address or port.
const (
	serviceIPClaimsPrefix = "/registry/ranges/serviceips/"
	nodePortClaimsPrefix  = "/registry/ranges/servicenodeports/"
)

// DefaultClaimRepairInterval is how often kube-apiserver runs its repair
// loops over the service IP and node port ranges.
const DefaultClaimRepairInterval = 3 * time.Minute

// numRepairsBeforeLeakCleanup is how many repair runs in a row must find
// a claim without its Service before it is freed: a Service being created
// holds its claim for a moment before it is stored (kube-apiserver's
// constant of the same name).
const numRepairsBeforeLeakCleanup = 3

// ClaimRepair is kube-apiserver's repair controllers of the service IP
// and node port ranges (pkg/registry/core/service/ipallocator/controller
// and portallocator/controller, repair.go) over kubesim's claim keys: it
// compares the claims in a shared store with the stored Services, claims
// what a Service holds without a claim ("not allocated; repairing"), and
// frees a claim no Service holds once numRepairsBeforeLeakCleanup runs in
// a row have found it so — the address or port a server claimed and then
// crashed before storing its Service. Only a store shared between API
// servers has claims (sharedclaims.go); with any other it does nothing.
//
// Left out: duplicate and out-of-range addresses are not reported (the
// allocators never make them), and an allocator that once found a freed
// claim taken keeps skipping that address until its server restarts.
type ClaimRepair struct {
	store  store.Interface
	logger *slog.Logger
	// leaks counts, per claim key, the runs left before it is freed.
	leaks map[string]int
}

// NewClaimRepair returns the repair loop of st's claims.
func NewClaimRepair(st store.Interface, logger *slog.Logger) *ClaimRepair {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &ClaimRepair{store: st, logger: logger, leaks: map[string]int{}}
}

// IsShared reports whether several API servers write st (it then holds
// the claims ClaimRepair repairs).
func IsShared(st store.Interface) bool { return isShared(st) }

// Run repairs every interval of clk until ctx ends (kube-apiserver runs
// the loop from its start, then every interval).
func (r *ClaimRepair) Run(ctx context.Context, clk clock.Clock, interval time.Duration) {
	for {
		if err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.logger.Error("repairing the service IP and node port claims", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.After(interval):
		}
	}
}

// RunOnce is one repair run. The claims are read before the Services, so
// that a Service stored between the two reads is seen with its claim.
func (r *ClaimRepair) RunOnce(ctx context.Context) error {
	if !isShared(r.store) {
		return nil
	}
	claims := map[string]store.KeyValue{}
	for _, prefix := range []string{serviceIPClaimsPrefix, nodePortClaimsPrefix} {
		if err := r.list(ctx, prefix, func(kv store.KeyValue) { claims[kv.Key] = kv }); err != nil {
			return fmt.Errorf("unable to refresh the service IP block: %w", err)
		}
	}
	held := map[string]bool{}
	var services []corev1.Service
	if err := r.list(ctx, servicesPrefix, func(kv store.KeyValue) {
		var svc corev1.Service
		if json.Unmarshal(kv.Value, &svc) == nil {
			services = append(services, svc)
		}
	}); err != nil {
		return fmt.Errorf("unable to refresh the service IP block: %w", err)
	}
	for _, svc := range services {
		owner := serviceKey(&svc)
		for _, ip := range svc.Spec.ClusterIPs {
			if ip == "" || ip == corev1.ClusterIPNone {
				continue
			}
			r.hold(ctx, held, claims, serviceIPClaimKey(ip), owner,
				fmt.Sprintf("the cluster IP %s for service %s/%s is not allocated; repairing", ip, svc.Name, svc.Namespace))
		}
		for _, p := range nodePortsOf(&svc) {
			r.hold(ctx, held, claims, servicePortClaimKey(p), owner,
				fmt.Sprintf("the node port %d for service %s/%s is not allocated; repairing", p, svc.Name, svc.Namespace))
		}
	}
	for key, kv := range claims {
		if held[key] {
			continue
		}
		what := claimName(key)
		left, seen := r.leaks[key]
		if !seen {
			r.logger.Warn(fmt.Sprintf("the %s may have leaked: flagging for later clean up", what))
			left = numRepairsBeforeLeakCleanup - 1
		}
		if left > 0 {
			r.leaks[key] = left - 1
			continue
		}
		// Only the claim read: one made again since is some Service's.
		if _, err := r.store.Delete(ctx, key, store.Preconditions{ResourceVersion: kv.ModRevision}); err != nil &&
			!store.IsNotFound(err) && !store.IsConflict(err) {
			return fmt.Errorf("unable to free the %s: %w", what, err)
		}
		r.logger.Warn(fmt.Sprintf("the %s appears to have leaked: cleaning up", what))
		delete(r.leaks, key)
	}
	for key := range r.leaks {
		if _, ok := claims[key]; !ok || held[key] {
			delete(r.leaks, key) // gone, or its Service came: not leaked
		}
	}
	return nil
}

// hold marks key as held by a Service, claiming it if no claim exists.
func (r *ClaimRepair) hold(ctx context.Context, held map[string]bool, claims map[string]store.KeyValue, key, owner, repairing string) {
	held[key] = true
	if _, ok := claims[key]; ok {
		return
	}
	r.logger.Warn(repairing)
	if _, err := claim(ctx, r.store, key, owner); err != nil {
		r.logger.Error("claiming", "key", key, "err", err)
	}
}

// list reads every key under prefix, page by page.
func (r *ClaimRepair) list(ctx context.Context, prefix string, each func(store.KeyValue)) error {
	opts := store.ListOptions{Limit: 500}
	for {
		res, err := r.store.List(ctx, prefix, opts)
		if err != nil {
			return err
		}
		for _, kv := range res.Items {
			each(kv)
		}
		if !res.More || len(res.Items) == 0 {
			return nil
		}
		opts.StartAfter = res.Items[len(res.Items)-1].Key
	}
}

// claimName is how the real repair loops name a claim in their messages.
func claimName(key string) string {
	if ip, ok := strings.CutPrefix(key, serviceIPClaimsPrefix); ok {
		return "cluster IP " + ip
	}
	p, _ := strings.CutPrefix(key, nodePortClaimsPrefix)
	if _, err := strconv.Atoi(p); err == nil {
		return "node port " + p
	}
	return key
}
