package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/protobuf"
)

// watchEncoder writes the events of a watch in the negotiated encoding:
// one JSON object per line, or, for a client that asked for
// application/vnd.kubernetes.protobuf, one protobuf WatchEvent per frame
// (a 4-byte big-endian length, then the message), as client-go's
// protobuf watch decoder reads them. Each event is flushed at once.
type watchEncoder struct {
	w        http.ResponseWriter
	flusher  http.Flusher
	protobuf bool
	json     *json.Encoder
}

func newWatchEncoder(w http.ResponseWriter, out output) *watchEncoder {
	f, _ := w.(http.Flusher)
	return &watchEncoder{w: w, flusher: f, protobuf: out == asProtobuf, json: json.NewEncoder(w)}
}

// contentType is the Content-Type of the stream.
func (e *watchEncoder) contentType() string {
	if e.protobuf {
		return protobuf.ContentType + ";stream=watch"
	}
	return "application/json"
}

// send writes one event and flushes it.
func (e *watchEncoder) send(ev watchEvent) error {
	if e.protobuf {
		msg, err := protobufWatchEvent(ev)
		if err != nil {
			return err
		}
		if _, err := e.w.Write(protobuf.Frame(msg)); err != nil {
			return err
		}
	} else if err := e.json.Encode(ev); err != nil {
		return err
	}
	e.flush()
	return nil
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
	case api.Status:
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
type protobufWatchEventMessage struct {
	Type   string `protobuf:"bytes,1,opt,name=type"`
	Object struct {
		Raw []byte `protobuf:"bytes,1,opt,name=raw"`
	} `protobuf:"bytes,2,opt,name=object"`
}
