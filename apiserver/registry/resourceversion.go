package registry

import (
	"context"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/clock"
	"github.com/kubesim/kubesim/store"
)

// How a read honours its resourceVersion, as k8s.io/apiserver's watch cache
// and its etcd3 storage do: a revision the store has not reached yet is
// waited for a little (the cache may be behind), then refused with 504; a
// revision older than the store still remembers is 410 Expired.

// The values of resourceVersionMatch (metav1.ResourceVersionMatch).
const (
	ResourceVersionMatchExact        = "Exact"
	ResourceVersionMatchNotOlderThan = "NotOlderThan"
)

// InitialEventsAnnotationKey marks the BOOKMARK that ends the initial
// events of a watch-list (metav1.InitialEventsAnnotationKey).
const InitialEventsAnnotationKey = "k8s.io/initial-events-end"

// DefaultResourceVersionWait is how long a read of a future revision waits
// for the store to reach it: the watch cache's 3 s of waitUntilFreshAndBlock.
const DefaultResourceVersionWait = 3 * time.Second

// resourceVersionTooHighRetrySeconds is the retry-after hint of the 504.
const resourceVersionTooHighRetrySeconds = 1

// ValidateListOptions checks the combinations of resourceVersion,
// resourceVersionMatch, sendInitialEvents and continue that Kubernetes
// allows (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation,
// with the WatchList feature on). allowWatchBookmarks is deliberately not
// required: without it a watch-list sends its initial events but no
// closing bookmark, which is how Kubernetes stays compatible with clients
// that asked for initial events with resourceVersion=0.
func ValidateListOptions(opts ListOptions, watch bool) field.ErrorList {
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	matchPath := field.NewPath("resourceVersionMatch")
	if watch {
		if opts.SendInitialEvents != nil && match != ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.Forbidden(matchPath, "sendInitialEvents requires setting resourceVersionMatch to "+ResourceVersionMatchNotOlderThan))
		}
		if match != "" {
			if opts.SendInitialEvents == nil {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if match != ResourceVersionMatchNotOlderThan {
				errs = append(errs, field.NotSupported(matchPath, match, []string{ResourceVersionMatchNotOlderThan}))
			}
			if opts.Continue != "" {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
		return errs
	}
	if match != "" {
		if opts.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if opts.Continue != "" {
			errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if match != ResourceVersionMatchExact && match != ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(matchPath, match, []string{ResourceVersionMatchExact, ResourceVersionMatchNotOlderThan, ""}))
		}
		if match == ResourceVersionMatchExact && opts.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(matchPath, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if opts.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	return errs
}

// ParseResourceVersion reads a resourceVersion parameter: "" and "0" are
// 0. Anything but a number is refused with the wording of Kubernetes'
// APIObjectVersioner. Kubernetes answers it with a 500 (kubernetes/kubernetes#101350,
// fixed by kubernetes/kubernetes#139525); it is the client's mistake, so
// this is a 400.
func ParseResourceVersion(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 63)
	if err != nil {
		return 0, api.NewBadRequest(field.Invalid(field.NewPath("resourceVersion"), rv, err.Error()).Error())
	}
	return int64(n), nil
}

// NewTooLargeResourceVersionError is the 504 for a read of a revision the
// store has not reached (storage.NewTooLargeResourceVersionError); clients
// retry after a second.
func NewTooLargeResourceVersionError(minimum, current int64) error {
	err := api.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", minimum, current), resourceVersionTooHighRetrySeconds)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// listExpired is etcd3's answer to a list at a compacted revision.
func listExpired() error {
	return api.NewResourceExpired("The resourceVersion for the provided list is too old.")
}

// waitForRevision returns once the store has reached revision rv, or the
// 504 of NewTooLargeResourceVersionError after s.rvWait on the injected
// clock.
func (s *Store) waitForRevision(ctx context.Context, rv int64) error {
	if s.storage.Revision() >= rv {
		return nil
	}
	timer := s.clock.NewTimer(s.rvWait)
	defer timer.Stop()
	for {
		// Any key will do: the point is to hear of every new revision.
		w, err := s.storage.Watch(ctx, "", 0)
		if err != nil {
			return s.storeError(err, "")
		}
		// Checked after the watch is open, so that a write between the
		// first check and the watch cannot go unheard.
		if s.storage.Revision() >= rv {
			w.Stop()
			return nil
		}
		reached, err := s.awaitRevision(ctx, w, timer, rv)
		w.Stop()
		if err != nil || reached {
			return err
		}
		// The watch was ended as too slow (a burst of writes): open
		// another; the timer keeps running.
	}
}

// awaitRevision reads w until an event at rv or later (true), the timer
// (504), ctx's end, or w's end (false: the caller watches again).
func (s *Store) awaitRevision(ctx context.Context, w store.Watcher, timer clock.Timer, rv int64) (bool, error) {
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				if s.storage.Revision() >= rv {
					return true, nil
				}
				if err := w.Err(); err != nil && !store.IsExpired(err) {
					return false, s.storeError(err, "")
				}
				return false, nil
			}
			if ev.Revision >= rv {
				return true, nil
			}
		case <-timer.C():
			return false, NewTooLargeResourceVersionError(rv, s.storage.Revision())
		case <-ctx.Done():
			return false, s.storeError(ctx.Err(), "")
		}
	}
}

// readRevision applies the resourceVersion of a list before it reads: a
// future revision is waited for. For Exact it reports the revision the
// list must be served at (0 otherwise).
func (s *Store) readRevision(ctx context.Context, opts ListOptions) (int64, error) {
	rv, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil || rv == 0 {
		return 0, err
	}
	if opts.Continue != "" {
		// The continue token carries the revision of the first page.
		return 0, api.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	if err := s.waitForRevision(ctx, rv); err != nil {
		return 0, err
	}
	if opts.ResourceVersionMatch == ResourceVersionMatchExact {
		return rv, nil
	}
	return 0, nil
}
