package audit

import (
	"encoding/json"
	"time"
)

// Level says how much of a request is logged.
type Level string

// The levels, from nothing to everything.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

// rank orders the levels; an unknown level ranks below None.
func (l Level) rank() int {
	switch l {
	case LevelNone:
		return 0
	case LevelMetadata:
		return 1
	case LevelRequest:
		return 2
	case LevelRequestResponse:
		return 3
	}
	return -1
}

// AtLeast reports whether l logs everything o does.
func (l Level) AtLeast(o Level) bool { return l.rank() >= o.rank() }

// StageResponseComplete is the stage of every event kubesim writes: the
// response has been sent.
const StageResponseComplete = "ResponseComplete"

// Event is an audit.k8s.io/v1 Event, with its fields in the real order.
type Event struct {
	Kind                     string          `json:"kind"`
	APIVersion               string          `json:"apiVersion"`
	Level                    Level           `json:"level"`
	AuditID                  string          `json:"auditID"`
	Stage                    string          `json:"stage"`
	RequestURI               string          `json:"requestURI"`
	Verb                     string          `json:"verb"`
	User                     UserInfo        `json:"user"`
	ImpersonatedUser         *UserInfo       `json:"impersonatedUser,omitempty"`
	SourceIPs                []string        `json:"sourceIPs,omitempty"`
	UserAgent                string          `json:"userAgent,omitempty"`
	ObjectRef                *ObjectRef      `json:"objectRef,omitempty"`
	ResponseStatus           *ResponseStatus `json:"responseStatus,omitempty"`
	RequestObject            json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage `json:"responseObject,omitempty"`
	RequestReceivedTimestamp MicroTime       `json:"requestReceivedTimestamp"`
	StageTimestamp           MicroTime       `json:"stageTimestamp"`
	// Annotations are what admission added: a webhook's auditAnnotations
	// (prefixed with its name), a policy's Audit failures.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// UserInfo is authentication/v1 UserInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// ObjectRef names the object a resource request is about.
type ObjectRef struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// ResponseStatus is the metav1.Status of the response: the code alone for
// a success, the Status's bounded fields for a failure.
type ResponseStatus struct {
	Metadata struct{}        `json:"metadata"`
	Status   string          `json:"status,omitempty"`
	Message  string          `json:"message,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Details  json.RawMessage `json:"details,omitempty"`
	Code     int             `json:"code"`
}

// MicroTime prints as metav1.MicroTime: UTC, with microseconds.
type MicroTime time.Time

// MarshalJSON implements json.Marshaler.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Time(t).UTC().Format("2006-01-02T15:04:05.000000Z07:00"))
}

// UnmarshalJSON implements json.Unmarshaler (tests read the log back).
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	*t = MicroTime(v)
	return err
}
