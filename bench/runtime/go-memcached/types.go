package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	crscheme "sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The kind of examples/memcached-operator's CRD (config/crd/bases/cache.example.com_memcacheds.yaml),
// written as kubebuilder's `create api` scaffolds it; the deep copies are what controller-gen's
// object generator would write.

var (
	GroupVersion = schema.GroupVersion{Group: "cache.example.com", Version: "v1alpha1"}
	// Registered here, not in an init function: main.go's init, which adds them to the
	// manager's scheme, runs before this file's.
	SchemeBuilder = (&crscheme.Builder{GroupVersion: GroupVersion}).Register(&Memcached{}, &MemcachedList{})
	AddToScheme   = SchemeBuilder.AddToScheme
)

// MemcachedSpec defines the desired state of Memcached.
type MemcachedSpec struct {
	// Size defines the number of Memcached instances (the CRD defaults it to 3).
	Size *int32 `json:"size,omitempty"`
	// ContainerPort defines the port of the memcached container (the CRD defaults it to 11211).
	ContainerPort *int32 `json:"containerPort,omitempty"`
}

// MemcachedStatus defines the observed state of Memcached.
type MemcachedStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Memcached is the Schema for the memcacheds API.
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MemcachedSpec   `json:"spec,omitempty"`
	Status MemcachedStatus `json:"status,omitempty"`
}

// MemcachedList contains a list of Memcached.
type MemcachedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Memcached `json:"items"`
}

func (in *MemcachedSpec) DeepCopyInto(out *MemcachedSpec) {
	*out = *in
	if in.Size != nil {
		out.Size = new(int32)
		*out.Size = *in.Size
	}
	if in.ContainerPort != nil {
		out.ContainerPort = new(int32)
		*out.ContainerPort = *in.ContainerPort
	}
}

func (in *MemcachedStatus) DeepCopyInto(out *MemcachedStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *Memcached) DeepCopyInto(out *Memcached) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

func (in *Memcached) DeepCopy() *Memcached {
	if in == nil {
		return nil
	}
	out := new(Memcached)
	in.DeepCopyInto(out)
	return out
}

func (in *Memcached) DeepCopyObject() runtime.Object {
	return in.DeepCopy()
}

func (in *MemcachedList) DeepCopyInto(out *MemcachedList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Memcached, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *MemcachedList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(MemcachedList)
	in.DeepCopyInto(out)
	return out
}
