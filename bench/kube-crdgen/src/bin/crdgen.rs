//! Prints the Memcached CRD, as kube-rs operators regenerate theirs.

use kube::CustomResourceExt;

fn main() {
    let crd = kube_crdgen::types::Memcached::crd();
    print!("{}", serde_yaml::to_string(&crd).expect("a CRD serializes"));
}
