package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// The reconciler of kubebuilder's deploy-image plugin and operator-sdk's memcached tutorial, step
// for step: conditions initialised to Unknown, the finalizer, the Deployment created when missing,
// its replicas kept at spec.size, then Available. One change, so that both operators wait for the
// same thing: Available is True only once the Deployment has spec.size available replicas (as
// examples/memcached-operator reports it), instead of as soon as its replicas are set.

const memcachedFinalizer = "cache.example.com/finalizer"

const (
	typeAvailableMemcached = "Available"
	typeDegradedMemcached  = "Degraded"
)

// MemcachedReconciler reconciles a Memcached object.
type MemcachedReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
}

// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete

func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	memcached := &Memcached{}
	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("memcached resource not found. Ignoring since object must be deleted")
			return ctrl.Result{}, nil
		}
		log.Error(err, "Failed to get memcached")
		return ctrl.Result{}, err
	}

	if len(memcached.Status.Conditions) == 0 {
		meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeAvailableMemcached,
			Status: metav1.ConditionUnknown, Reason: "Reconciling", Message: "Starting reconciliation"})
		if err := r.Status().Update(ctx, memcached); err != nil {
			log.Error(err, "Failed to update Memcached status")
			return ctrl.Result{}, err
		}
		// Re-read, so that the update below does not fail on the resource version.
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			log.Error(err, "Failed to re-fetch memcached")
			return ctrl.Result{}, err
		}
	}

	if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
		log.Info("Adding Finalizer for Memcached")
		if ok := controllerutil.AddFinalizer(memcached, memcachedFinalizer); !ok {
			return ctrl.Result{Requeue: true}, nil
		}
		if err := r.Update(ctx, memcached); err != nil {
			log.Error(err, "Failed to update custom resource to add finalizer")
			return ctrl.Result{}, err
		}
	}

	if memcached.GetDeletionTimestamp() != nil {
		return r.finalize(ctx, req, memcached)
	}

	found := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Name: memcached.Name, Namespace: memcached.Namespace}, found)
	if err != nil && apierrors.IsNotFound(err) {
		dep, err := r.deploymentForMemcached(memcached)
		if err != nil {
			log.Error(err, "Failed to define new Deployment resource for Memcached")
			meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeAvailableMemcached,
				Status: metav1.ConditionFalse, Reason: "Reconciling",
				Message: fmt.Sprintf("Failed to create Deployment for the custom resource (%s): (%s)", memcached.Name, err)})
			if err := r.Status().Update(ctx, memcached); err != nil {
				log.Error(err, "Failed to update Memcached status")
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		log.Info("Creating a new Deployment", "Deployment.Namespace", dep.Namespace, "Deployment.Name", dep.Name)
		if err = r.Create(ctx, dep); err != nil {
			log.Error(err, "Failed to create new Deployment",
				"Deployment.Namespace", dep.Namespace, "Deployment.Name", dep.Name)
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	} else if err != nil {
		log.Error(err, "Failed to get Deployment")
		return ctrl.Result{}, err
	}

	size := sizeOf(memcached)
	if found.Spec.Replicas == nil || *found.Spec.Replicas != size {
		found.Spec.Replicas = &size
		if err = r.Update(ctx, found); err != nil {
			log.Error(err, "Failed to update Deployment",
				"Deployment.Namespace", found.Namespace, "Deployment.Name", found.Name)
			if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
				log.Error(err, "Failed to re-fetch memcached")
				return ctrl.Result{}, err
			}
			meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeAvailableMemcached,
				Status: metav1.ConditionFalse, Reason: "Resizing",
				Message: fmt.Sprintf("Failed to update the size for the custom resource (%s): (%s)", memcached.Name, err)})
			if err := r.Status().Update(ctx, memcached); err != nil {
				log.Error(err, "Failed to update Memcached status")
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, err
		}
		return ctrl.Result{Requeue: true}, nil
	}

	// The one change from upstream (see the top of this file); the Deployment's status changes
	// reconcile its Memcached through Owns.
	available := metav1.Condition{Type: typeAvailableMemcached, Status: metav1.ConditionTrue, Reason: "Reconciling",
		Message: fmt.Sprintf("Deployment for custom resource (%s) with %d replicas created successfully", memcached.Name, size)}
	if found.Status.AvailableReplicas < size {
		available.Status = metav1.ConditionFalse
		available.Message = fmt.Sprintf("Deployment for custom resource (%s) has %d of %d replicas available",
			memcached.Name, found.Status.AvailableReplicas, size)
	}
	meta.SetStatusCondition(&memcached.Status.Conditions, available)
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// finalize reports the deletion (upstream's "finalizer operations") and removes the finalizer.
func (r *MemcachedReconciler) finalize(ctx context.Context, req ctrl.Request, memcached *Memcached) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	if !controllerutil.ContainsFinalizer(memcached, memcachedFinalizer) {
		return ctrl.Result{}, nil
	}
	log.Info("Performing Finalizer Operations for Memcached before delete CR")
	meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeDegradedMemcached,
		Status: metav1.ConditionUnknown, Reason: "Finalizing",
		Message: fmt.Sprintf("Performing finalizer operations for the custom resource: %s ", memcached.Name)})
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}
	r.Recorder.Event(memcached, "Warning", "Deleting",
		fmt.Sprintf("Custom Resource %s is being deleted from the namespace %s", memcached.Name, memcached.Namespace))
	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		log.Error(err, "Failed to re-fetch memcached")
		return ctrl.Result{}, err
	}
	meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeDegradedMemcached,
		Status: metav1.ConditionTrue, Reason: "Finalizing",
		Message: fmt.Sprintf("Finalizer operations for custom resource %s name were successfully accomplished", memcached.Name)})
	if err := r.Status().Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to update Memcached status")
		return ctrl.Result{}, err
	}
	log.Info("Removing Finalizer for Memcached after successfully perform the operations")
	if ok := controllerutil.RemoveFinalizer(memcached, memcachedFinalizer); !ok {
		return ctrl.Result{Requeue: true}, nil
	}
	if err := r.Update(ctx, memcached); err != nil {
		log.Error(err, "Failed to remove finalizer for Memcached")
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

func sizeOf(memcached *Memcached) int32 {
	if memcached.Spec.Size != nil {
		return *memcached.Spec.Size
	}
	return 3
}

func portOf(memcached *Memcached) int32 {
	if memcached.Spec.ContainerPort != nil {
		return *memcached.Spec.ContainerPort
	}
	return 11211
}

// deploymentForMemcached returns the memcached Deployment, controlled by the Memcached.
func (r *MemcachedReconciler) deploymentForMemcached(memcached *Memcached) (*appsv1.Deployment, error) {
	image, err := imageForMemcached()
	if err != nil {
		return nil, err
	}
	ls := labelsForMemcached(memcached.Name, image)
	replicas := sizeOf(memcached)
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: memcached.Name, Namespace: memcached.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: ls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: ls},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Image:           image,
						Name:            "memcached",
						ImagePullPolicy: corev1.PullIfNotPresent,
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             ptr(true),
							RunAsUser:                ptr(int64(1001)),
							AllowPrivilegeEscalation: ptr(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						Ports:   []corev1.ContainerPort{{ContainerPort: portOf(memcached), Name: "memcached"}},
						Command: []string{"memcached", "-m=64", "-o", "modern", "-v"},
					}},
				},
			},
		},
	}
	if err := ctrl.SetControllerReference(memcached, dep, r.Scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

func labelsForMemcached(name, image string) map[string]string {
	var tag string
	if _, after, found := strings.Cut(image, ":"); found {
		tag = after
	}
	return map[string]string{
		"app.kubernetes.io/name":       "Memcached",
		"app.kubernetes.io/instance":   name,
		"app.kubernetes.io/version":    tag,
		"app.kubernetes.io/part-of":    "memcached-operator",
		"app.kubernetes.io/created-by": "controller-manager",
	}
}

func imageForMemcached() (string, error) {
	image, found := os.LookupEnv("MEMCACHED_IMAGE")
	if !found {
		return "", fmt.Errorf("unable to find MEMCACHED_IMAGE environment variable with the image")
	}
	return image, nil
}

func ptr[T any](v T) *T { return &v }

// SetupWithManager watches Memcacheds and the Deployments they own.
func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&Memcached{}).
		Named("memcached").
		Owns(&appsv1.Deployment{}).
		Complete(r)
}
