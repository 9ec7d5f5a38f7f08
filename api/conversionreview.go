package api

// This file holds apiextensions.k8s.io/v1 ConversionReview
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1): what the API
// server sends a CRD's conversion webhook and what the webhook answers. It
// is never stored.

// ConversionReview carries a conversion request to a webhook and its
// response back.
type ConversionReview struct {
	TypeMeta `json:",inline"`
	Request  *ConversionRequest  `json:"request,omitempty" protobuf:"bytes,1,opt,name=request"`
	Response *ConversionResponse `json:"response,omitempty" protobuf:"bytes,2,opt,name=response"`
}

// ConversionRequest asks for objects in another version.
type ConversionRequest struct {
	// UID identifies this call; the response must echo it.
	UID string `json:"uid" protobuf:"bytes,1,name=uid"`
	// DesiredAPIVersion is the group/version the objects must be in.
	DesiredAPIVersion string `json:"desiredAPIVersion" protobuf:"bytes,2,name=desiredAPIVersion"`
	// Objects are the objects to convert (possibly of several versions).
	Objects []RawExtension `json:"objects" protobuf:"bytes,3,rep,name=objects"`
}

// ConversionResponse is the webhook's answer.
type ConversionResponse struct {
	UID string `json:"uid" protobuf:"bytes,1,name=uid"`
	// ConvertedObjects are the objects in DesiredAPIVersion, in the order
	// of the request's objects, with unchanged metadata (labels and
	// annotations aside).
	ConvertedObjects []RawExtension `json:"convertedObjects" protobuf:"bytes,2,rep,name=convertedObjects"`
	// Result says whether conversion succeeded (status Success) and why not.
	Result Status `json:"result" protobuf:"bytes,3,name=result"`
}
