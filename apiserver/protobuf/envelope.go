package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
)

// ContentType is the media type of Kubernetes protobuf.
const ContentType = "application/vnd.kubernetes.protobuf"

// magic starts every enveloped message ("k8s" and a zero byte), so that a
// reader can tell protobuf from JSON or YAML by its first bytes.
var magic = []byte{'k', '8', 's', 0}

// HasMagic reports whether b starts with the protobuf envelope's magic.
func HasMagic(b []byte) bool { return bytes.HasPrefix(b, magic) }

// The fields of runtime.Unknown, the envelope
// (k8s.io/apimachinery/pkg/runtime/generated.proto).
const (
	unknownTypeMeta        = 1 // runtime.TypeMeta {apiVersion = 1, kind = 2}
	unknownRaw             = 2
	unknownContentEncoding = 3
	unknownContentType     = 4
)

// Kinded is what Encode and Decode need of a value besides its generated
// code: its TypeMeta. Every kind and list has it, and so do Status and
// DeleteOptions, which are not objects of the store.
type Kinded interface {
	GetObjectKind() schema.ObjectKind
}

// typeMeta returns obj's TypeMeta, the metav1.TypeMeta every kind embeds.
func typeMeta(obj Kinded) *metav1.TypeMeta {
	return obj.GetObjectKind().(*metav1.TypeMeta)
}

// Encode writes obj as kube-apiserver does: the magic, then a
// runtime.Unknown holding obj's apiVersion and kind and, as raw, obj's
// message bytes. The content encoding and type are written empty, meaning
// "protobuf", as the real serializer leaves them.
func Encode(obj Kinded) ([]byte, error) {
	m, err := message(obj)
	if err != nil {
		return nil, err
	}
	tm := typeMeta(obj)
	return envelope(tm.APIVersion, tm.Kind, m.Size(), func(b []byte) ([]byte, error) {
		return appendMessage(b, m)
	})
}

// EncodeList writes a list kind (PodList...) in the envelope from its
// metadata and items: every Kubernetes list has its ListMeta as field 1 and
// its items as field 2, so one function serves all lists, including the
// ones the API server assembles from cached objects without a list value.
func EncodeList(apiVersion, kind string, meta metav1.ListMeta, items []api.Object) ([]byte, error) {
	msgs := make([]Message, len(items))
	size := 1 + protowire.SizeBytes(meta.Size())
	for i, item := range items {
		m, err := message(item)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
		size += 1 + protowire.SizeBytes(m.Size())
	}
	return envelope(apiVersion, kind, size, func(b []byte) ([]byte, error) {
		b, err := appendNested(b, 1, &meta)
		for _, m := range msgs {
			if err != nil {
				break
			}
			b, err = appendNested(b, 2, m)
		}
		return b, err
	})
}

// envelope writes magic + Unknown, with raw (of the given size) written by
// body.
func envelope(apiVersion, kind string, size int, body func([]byte) ([]byte, error)) ([]byte, error) {
	b := make([]byte, 0, size+len(apiVersion)+len(kind)+32)
	b = append(b, magic...)
	b = protowire.AppendTag(b, unknownTypeMeta, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(1)*2+protowire.SizeBytes(len(apiVersion))+protowire.SizeBytes(len(kind))))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, apiVersion)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, kind)
	b = protowire.AppendTag(b, unknownRaw, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	b, err := body(b)
	if err != nil {
		return nil, err
	}
	b = protowire.AppendTag(b, unknownContentEncoding, protowire.BytesType)
	b = protowire.AppendString(b, "")
	b = protowire.AppendTag(b, unknownContentType, protowire.BytesType)
	b = protowire.AppendString(b, "")
	return b, nil
}

// Decode reads an enveloped message into into, which it resets first, and
// returns the apiVersion and kind the envelope names; into's TypeMeta is
// set to them. An envelope without kind or apiVersion takes them from
// into's TypeMeta when set, as the real decoder takes them from the type
// it decodes into. Errors are worded as k8s.io/apimachinery's protobuf
// serializer words them.
func Decode(data []byte, into Kinded) (apiVersion, kind string, err error) {
	switch {
	case len(data) == 0:
		return "", "", errors.New("empty data")
	case !HasMagic(data):
		return "", "", fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", magic)
	case len(data) == len(magic):
		return "", "", errors.New("empty body")
	}
	m, err := message(into)
	if err != nil {
		return "", "", err
	}
	unk, err := parseUnknown(data[len(magic):])
	if err != nil {
		return "", "", err
	}
	apiVersion, kind = unk.apiVersion, unk.kind
	tm := typeMeta(into)
	if kind == "" {
		kind = tm.Kind
	}
	if apiVersion == "" {
		apiVersion = tm.APIVersion
	}
	typeMetaText := fmt.Sprintf("runtime.TypeMeta{APIVersion:%q, Kind:%q}", unk.apiVersion, unk.kind)
	if kind == "" {
		return apiVersion, kind, fmt.Errorf("Object 'Kind' is missing in '%s'", typeMetaText)
	}
	if apiVersion == "" {
		return apiVersion, kind, fmt.Errorf("Object 'apiVersion' is missing in '%s'", typeMetaText)
	}
	reflect.ValueOf(into).Elem().SetZero()
	if err := m.Unmarshal(unk.raw); err != nil {
		return apiVersion, kind, err
	}
	*typeMeta(into) = metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
	return apiVersion, kind, nil
}

// unknown is a parsed runtime.Unknown.
type unknown struct {
	apiVersion, kind string
	raw              []byte
	contentEncoding  string
	contentType      string
}

func parseUnknown(data []byte) (unknown, error) {
	var u unknown
	for len(data) > 0 {
		num, typ, n, err := consumeTag(data, "Unknown")
		if err != nil {
			return u, err
		}
		data = data[n:]
		if typ != protowire.BytesType {
			return u, fmt.Errorf(errWrongFieldKind, typ, unknownFieldName(num))
		}
		v, m := protowire.ConsumeBytes(data)
		if m < 0 {
			return u, parseError(m)
		}
		data = data[m:]
		switch num {
		case unknownTypeMeta:
			if err := parseTypeMeta(v, &u); err != nil {
				return u, err
			}
		case unknownRaw:
			u.raw = v
		case unknownContentEncoding:
			u.contentEncoding = string(v)
		case unknownContentType:
			u.contentType = string(v)
		default:
			return u, fmt.Errorf("proto: Unknown: unknown field number %d (wire type %d)", num, typ)
		}
	}
	return u, nil
}

func unknownFieldName(num protowire.Number) string {
	switch num {
	case unknownTypeMeta:
		return "TypeMeta"
	case unknownRaw:
		return "Raw"
	case unknownContentEncoding:
		return "ContentEncoding"
	}
	return "ContentType"
}

func parseTypeMeta(data []byte, u *unknown) error {
	for len(data) > 0 {
		num, typ, n, err := consumeTag(data, "TypeMeta")
		if err != nil {
			return err
		}
		data = data[n:]
		if num != 1 && num != 2 {
			return fmt.Errorf("proto: TypeMeta: unknown field number %d (wire type %d)", num, typ)
		}
		name := map[protowire.Number]string{1: "APIVersion", 2: "Kind"}[num]
		if typ != protowire.BytesType {
			return fmt.Errorf(errWrongFieldKind, typ, name)
		}
		v, m := protowire.ConsumeBytes(data)
		if m < 0 {
			return parseError(m)
		}
		data = data[m:]
		if num == 1 {
			u.apiVersion = string(v)
		} else {
			u.kind = string(v)
		}
	}
	return nil
}

// EncodeWatchEvent writes one event of a protobuf watch stream as
// kube-apiserver's watch encoder does (k8s.io/apiserver
// endpoints/handlers/response.go): a metav1.WatchEvent {type = 1,
// object = 2} whose object is a RawExtension {raw = 1} holding obj
// enveloped (magic and Unknown, as Encode writes it). The WatchEvent
// itself is NOT enveloped: the watch stream's serializer is the "raw"
// protobuf serializer. Pass the result to Frame.
func EncodeWatchEvent(eventType string, obj Kinded) ([]byte, error) {
	inner, err := Encode(obj)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(inner)+len(eventType)+16)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, eventType)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(protowire.SizeTag(1)+protowire.SizeBytes(len(inner))))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, inner)
	return b, nil
}

// DecodeWatchEvent reads a WatchEvent message (one frame's content) and
// returns its type and the enveloped object, for Decode.
func DecodeWatchEvent(msg []byte) (eventType string, object []byte, err error) {
	for len(msg) > 0 {
		num, typ, n, err := consumeTag(msg, "WatchEvent")
		if err != nil {
			return "", nil, err
		}
		msg = msg[n:]
		if typ != protowire.BytesType {
			return "", nil, fmt.Errorf(errWrongFieldKind, typ, map[protowire.Number]string{1: "Type", 2: "Object"}[num])
		}
		v, m := protowire.ConsumeBytes(msg)
		if m < 0 {
			return "", nil, parseError(m)
		}
		msg = msg[m:]
		switch num {
		case 1:
			eventType = string(v)
		case 2:
			if object, err = decodeRaw(v); err != nil {
				return "", nil, err
			}
		default:
			return "", nil, fmt.Errorf("proto: WatchEvent: unknown field number %d (wire type %d)", num, typ)
		}
	}
	return eventType, object, nil
}

// Frame prefixes msg with its length as 4 bytes, big-endian: the framing
// of protobuf watch streams (apimachinery's LengthDelimitedFramer).
func Frame(msg []byte) []byte {
	b := make([]byte, 4, 4+len(msg))
	binary.BigEndian.PutUint32(b, uint32(len(msg)))
	return append(b, msg...)
}

// ReadFrame reads one length-prefixed frame from r; io.EOF at a frame
// boundary means the stream ended.
func ReadFrame(r io.Reader) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	msg := make([]byte, binary.BigEndian.Uint32(h[:]))
	if _, err := io.ReadFull(r, msg); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return msg, nil
}
