package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/handoff"
	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// watchEncoder writes the events of a watch in the negotiated encoding:
// one JSON object per line, or, for a client that asked for
// application/vnd.kubernetes.protobuf, one protobuf WatchEvent per frame
// (a 4-byte big-endian length, then the message), as client-go's
// protobuf watch decoder reads them. Each event is flushed at once.
type watchEncoder struct {
	// handoff, when set, takes the events instead of the response body:
	// an in-process client's watch (package handoff).
	handoff  *handoff.Watch
	w        http.ResponseWriter
	flusher  http.Flusher
	protobuf bool
}

func newWatchEncoder(w http.ResponseWriter, out output) *watchEncoder {
	f, _ := w.(http.Flusher)
	return &watchEncoder{w: w, flusher: f, protobuf: out.protobuf}
}

// contentType is the Content-Type of the stream.
func (e *watchEncoder) contentType() string {
	if e.protobuf {
		return protobuf.ContentType + ";stream=watch"
	}
	return "application/json"
}

// send writes one event and flushes it.
func (e *watchEncoder) send(ctx context.Context, ev watchEvent) error {
	if e.handoff != nil {
		hev, err := handoffEvent(e.handoff, ev)
		if err != nil {
			return err
		}
		if !e.handoff.Send(ctx, hev) {
			return ctx.Err()
		}
		return nil
	}
	if e.protobuf {
		msg, err := protobufWatchEvent(ev)
		if err != nil {
			return err
		}
		if _, err := e.w.Write(protobuf.Frame(msg)); err != nil {
			return err
		}
	} else {
		// One JSON object and a newline per event, as encoding/json's
		// Encoder writes them.
		data, err := jsoncodec.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := e.w.Write(append(data, '\n')); err != nil {
			return err
		}
	}
	e.flush()
	return nil
}

// handoffEvent is ev for an in-process client: the object itself when it
// is of the client's type (the watch cache's decoded object, shared), else
// the JSON the stream would have carried.
func handoffEvent(hw *handoff.Watch, ev watchEvent) (handoff.Event, error) {
	out := handoff.Event{Type: ev.Type}
	switch obj := ev.Object.(type) {
	case metav1.Status:
		out.Status = &obj
	case json.RawMessage:
		out.Raw = obj
	case api.Object:
		if hw.Accepts(obj) {
			out.Object = obj
			break
		}
		raw, err := jsoncodec.Marshal(obj)
		if err != nil {
			return handoff.Event{}, err
		}
		out.Raw = raw
	default:
		return handoff.Event{}, fmt.Errorf("watch event object %T cannot be handed over", ev.Object)
	}
	return out, nil
}

func (e *watchEncoder) flush() {
	if e.flusher != nil {
		e.flusher.Flush()
	}
}

// protobufWatchEvent encodes one event as a metav1.WatchEvent message. An
// ERROR event carries a Status, which is not an object with metadata: it
// is enveloped here the way the codec envelopes objects.
func protobufWatchEvent(ev watchEvent) ([]byte, error) {
	switch obj := ev.Object.(type) {
	case api.Object:
		return protobuf.EncodeWatchEvent(string(ev.Type), obj)
	case metav1.Status:
		raw, err := protobuf.Marshal(&obj)
		if err != nil {
			return nil, err
		}
		var env protobufEnvelope
		env.TypeMeta.APIVersion, env.TypeMeta.Kind, env.Raw = "v1", "Status", raw
		inner, err := protobuf.Marshal(&env)
		if err != nil {
			return nil, err
		}
		var we protobufWatchEventMessage
		we.Type = string(ev.Type)
		we.Object.Raw = append([]byte("k8s\x00"), inner...)
		return protobuf.Marshal(&we)
	}
	return nil, fmt.Errorf("watch event object %T has no protobuf form", ev.Object)
}

// protobufWatchEventMessage is metav1.WatchEvent: the event type and the
// enveloped object as a RawExtension.
type protobufWatchEventMessage = metav1.WatchEvent
