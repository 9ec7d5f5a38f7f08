package api

// EphemeralContainer is a container added to a running pod for a user's
// own work, debugging above all (kubectl debug): it has no ports, probes
// or resources, is never restarted, and once added can be neither changed
// nor removed. It is added through the pod's ephemeralcontainers
// subresource, never on create.
type EphemeralContainer struct {
	// EphemeralContainerCommon holds the fields it shares with Container;
	// inline in JSON, field 1 of the protobuf message.
	EphemeralContainerCommon `json:"" protobuf:"bytes,1,req"`
	// TargetContainerName names the container whose process namespace it
	// joins (kubectl debug --target): its processes can see that one's.
	TargetContainerName string `json:"targetContainerName,omitempty" protobuf:"bytes,2,opt,name=targetContainerName"`
}

// EphemeralContainerCommon is Container field for field, so that one
// converts to the other (Container(ec.EphemeralContainerCommon)), as in
// Kubernetes; the fields validation forbids here are documented on
// ValidateEphemeralContainers in apiserver/kinds.
type EphemeralContainerCommon struct {
	_                        struct{}                 `json:"-" protobuf:"bytes,12,opt,name=lifecycle"`
	_                        struct{}                 `json:"-" protobuf:"bytes,21,rep,name=volumeDevices"`
	_                        struct{}                 `json:"-" protobuf:"bytes,23,rep,name=resizePolicy"`
	_                        struct{}                 `json:"-" protobuf:"bytes,25,rep,name=restartPolicyRules"`
	RestartPolicy            *ContainerRestartPolicy  `json:"restartPolicy,omitempty" protobuf:"bytes,24,opt,name=restartPolicy,casttype=ContainerRestartPolicy"`
	Name                     string                   `json:"name" protobuf:"bytes,1,opt,name=name"`
	Image                    string                   `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	Command                  []string                 `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	Args                     []string                 `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	WorkingDir               string                   `json:"workingDir,omitempty" protobuf:"bytes,5,opt,name=workingDir"`
	Ports                    []ContainerPort          `json:"ports,omitempty" protobuf:"bytes,6,rep,name=ports" patchStrategy:"merge" patchMergeKey:"containerPort"`
	EnvFrom                  []EnvFromSource          `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	Env                      []EnvVar                 `json:"env,omitempty" protobuf:"bytes,7,rep,name=env" patchStrategy:"merge" patchMergeKey:"name"`
	Resources                ResourceRequirements     `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	VolumeMounts             []VolumeMount            `json:"volumeMounts,omitempty" protobuf:"bytes,9,rep,name=volumeMounts" patchStrategy:"merge" patchMergeKey:"mountPath"`
	LivenessProbe            *Probe                   `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	ReadinessProbe           *Probe                   `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	StartupProbe             *Probe                   `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	TerminationMessagePath   string                   `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy,casttype=TerminationMessagePolicy"`
	ImagePullPolicy          PullPolicy               `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy,casttype=PullPolicy"`
	SecurityContext          *SecurityContext         `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
	Stdin                    bool                     `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	StdinOnce                bool                     `json:"stdinOnce,omitempty" protobuf:"varint,17,opt,name=stdinOnce"`
	TTY                      bool                     `json:"tty,omitempty" protobuf:"varint,18,opt,name=tty"`
}

// AsContainer is the ephemeral container as a Container, which is how the
// kubelet runs it.
func (e *EphemeralContainer) AsContainer() Container {
	return Container(e.EphemeralContainerCommon)
}
