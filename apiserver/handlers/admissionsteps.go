package handlers

import (
	"context"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/audit"
)

// AdmissionStepHeader carries, one value per step, what the admission
// chain changed or refused in a write: kubesim's own header (Kubernetes
// records this only in its audit log, as admission annotations), read by
// the stepper to show the steps in the trace.
const AdmissionStepHeader = "Kubesim-Admission"

// AdmissionTraceHeader on a write request asks for every step, with the
// patch each built-in mutating plugin made (the stepper's recorder sets
// it). Without it the answer still lists the webhooks' and policies'
// steps and any refusal, but the built-in plugins' patches are not
// computed: diffing the object around each plugin was a fifth of a
// create's CPU in a live cluster, for a header nobody read.
const AdmissionTraceHeader = "Kubesim-Admission-Trace"

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// admissionStepsWriter adds the recorded steps as headers before the
// answer's status line is written.
type admissionStepsWriter struct {
	http.ResponseWriter
	rec     *admission.Record
	ctx     context.Context // the request's, for its audit event
	written bool
}

func (w *admissionStepsWriter) addSteps() {
	if w.written {
		return
	}
	w.written = true
	for _, s := range w.rec.Steps() {
		w.Header().Add(AdmissionStepHeader, s.String())
	}
	addWarnings(w.ResponseWriter, w.rec.Warnings())
	audit.AddAnnotations(w.ctx, w.rec.AuditAnnotations())
}

func (w *admissionStepsWriter) WriteHeader(code int) {
	w.addSteps()
	w.ResponseWriter.WriteHeader(code)
}

func (w *admissionStepsWriter) Write(b []byte) (int, error) {
	w.addSteps()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *admissionStepsWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
