//! The README of a scaffolded project, followed as written: every ```sh block runs, in order,
//! against a real API server (envtest) standing in for the user's cluster, and the file layout
//! it lists exists. What this machine cannot do is named where it is done differently: no
//! container engine (`make docker-build docker-push` is checked with `make -n`), no network
//! (the `kubectl apply -f https://…/dist/install.yaml` line applies the file `make
//! build-installer` wrote), no kubelet in envtest (the manager `make run` started keeps
//! reconciling after `make deploy`), and no namespace controller (deletions do not wait, and
//! the test finishes the deleted Namespace as kube-controller-manager would). A new block the test does not know fails it, so the README
//! cannot rot.

mod support;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use support::new_memcached_project;

/// Fenced blocks of a Markdown text: (info string, body).
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_owned(), body.join("\n") + "\n"));
        }
    }
    blocks
}

/// The environment a user has: opgen and kubectl on PATH, the current kubeconfig pointing at
/// the cluster, the control plane binaries for `make test`.
struct Shell {
    dir: PathBuf,
    path: String,
    kubeconfig: PathBuf,
    assets: PathBuf,
    target: PathBuf,
}

impl Shell {
    fn command(&self, script: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.args(["-eo", "pipefail", "-c", script])
            .current_dir(&self.dir)
            .env("PATH", &self.path)
            .env("KUBECONFIG", &self.kubeconfig)
            .env("KUBEBUILDER_ASSETS", &self.assets)
            .env_remove("MAKEFLAGS");
        support::builds_in_projects_target(&mut cmd);
        cmd
    }

    fn run(&self, script: &str) -> String {
        let out = self.command(script).output().expect("bash runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "`{script}` failed:\n{text}");
        text
    }

    fn kubectl(&self, args: &str) -> String {
        self.run(&format!("kubectl {args}"))
    }
}

/// `make run` in the background, its output in `log`, stopped (its whole process group) when
/// dropped.
struct Background {
    child: Child,
    log: PathBuf,
}

impl Background {
    /// Fails the test at once, with the log, when the manager has exited (a build error, a
    /// crash): waiting for what it would have done only hides why.
    fn assert_running(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(60).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            panic!(
                "`make run` exited ({status}); the end of its output:\n{}",
                tail.join("\n")
            );
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // The child leads its own process group: make, cargo and the manager go together.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

/// `make verify-api` once there is a release: a new required field fails it, naming the field;
/// the same field optional with a default passes. The types are restored afterwards.
fn api_after_a_release(shell: &Shell) {
    let git = "git -c user.name=t -c user.email=t@example.com";
    shell.run(&format!(
        "{git} add -A && {git} commit -qm v0.1.0 && {git} tag v0.1.0"
    ));
    let types = shell.dir.join("src/api/v1alpha1/memcached_types.rs");
    let released = std::fs::read_to_string(&types).unwrap();
    let with_field = |field: &str| {
        let text = released.replacen(
            "pub struct MemcachedSpec {\n",
            &format!(
                "pub struct MemcachedSpec {{\n    /// image is the memcached image.\n{field}\n"
            ),
            1,
        );
        assert_ne!(text, released, "no MemcachedSpec in {}", types.display());
        std::fs::write(&types, text).unwrap();
    };
    with_field("    // +required\n    pub image: String,");
    let out = shell.command("make verify-api").output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("diff v0.1.0") && text.contains(".spec.image: now required"),
        "{text}"
    );
    with_field(
        "    // +optional\n    // +kubebuilder:default=\"memcached:1.6\"\n    \
         #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub image: Option<String>,",
    );
    let out = shell.run("make verify-api");
    assert!(
        out.contains("compatible: 0 breaking, 0 possibly breaking"),
        "{out}"
    );
    std::fs::write(&types, released).unwrap();
}

/// Runs `check` until it succeeds with some output, failing early if the manager `make run`
/// started is gone.
fn eventually(shell: &Shell, manager: &mut Option<Background>, what: &str, check: &str) -> String {
    for _ in 0..1200 {
        if let Some(manager) = manager.as_mut() {
            manager.assert_running();
        }
        let out = shell.command(check).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() && !text.trim().is_empty() {
            return text;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("timed out waiting for {what} (`{check}`)");
}

/// A kubectl that does not wait for deletions: envtest runs no namespace controller, so a
/// deleted Namespace stays Terminating and `kubectl delete` would wait for ever.
fn kubectl_shim(dir: &Path, kubectl: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let shim = bin.join("kubectl");
    std::fs::write(
        &shim,
        format!(
            "#!/usr/bin/env bash\nif [ \"$1\" = delete ]; then shift; exec {k} delete --wait=false \"$@\"; fi\nexec {k} \"$@\"\n",
            k = kubectl.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    bin
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scaffolded_readme_works_as_written() {
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let parent = tempfile::tempdir().unwrap();
    // `tests/readme.rs` builds from vendor/ as a user does; here opgen-runtime and
    // opgen-envtest compile once for all the tests' projects.
    support::patch_projects_below(parent.path());
    let project = new_memcached_project(parent.path(), "rd");
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    let shim = kubectl_shim(parent.path(), &control_plane.assets().kubectl());
    let opgen_dir = support::opgen_bin().parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        [shim.as_path(), &opgen_dir]
            .into_iter()
            .map(Path::to_path_buf)
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .unwrap()
    .into_string()
    .unwrap();
    let shell = Shell {
        dir: project.clone(),
        path,
        kubeconfig: control_plane.kubeconfig_path().to_path_buf(),
        assets: control_plane.assets().dir().to_path_buf(),
        target: support::projects_target_dir(),
    };
    let image = "registry.example.com/rd:v0.1.0";
    let mut manager = None;
    let mut ran = Vec::new();

    for (info, body) in blocks(&readme) {
        match info.as_str() {
            "sh" => {}
            // The layout: every path it names exists.
            "" if body.starts_with("Cargo.toml ") => {
                for line in body.lines() {
                    let path = line.split_whitespace().next().unwrap();
                    assert!(
                        project.join(path).exists(),
                        "the README lists {path}, which is missing"
                    );
                }
                ran.push("layout".to_owned());
                continue;
            }
            other => panic!(
                "the scaffolded README has a ```{other} block this test does not know:\n{body}"
            ),
        }
        let script = body
            .replace("<group>", "cache")
            .replace("<Kind>", "Widget")
            .replace("<some-registry>/rd:tag", image)
            .replace(
                "<some-registry>/rd-bundle:",
                "registry.example.com/rd-bundle:",
            );
        match script.trim() {
            "opgen create api --group cache --version v1alpha1 --kind Widget" => {
                shell.run(&script);
            }
            "make install\nmake run" => {
                shell.run("make install");
                shell.kubectl("get crd memcacheds.cache.example.com widgets.cache.example.com");
                let log = parent.path().join("make-run.log");
                let out = std::fs::File::create(&log).unwrap();
                let mut cmd = shell.command("make run");
                cmd.process_group(0)
                    .stdout(out.try_clone().unwrap())
                    .stderr(out);
                manager = Some(Background {
                    child: cmd.spawn().unwrap(),
                    log,
                });
            }
            "kubectl apply -k config/samples/" => {
                shell.run(&script);
                {
                    // The manager on this machine reconciles the sample: its status appears.
                    eventually(
                        &shell,
                        &mut manager,
                        "the manager started by `make run` to set the sample's conditions",
                        "kubectl get memcached memcached-sample -o jsonpath='{.status.conditions[0].type}'",
                    );
                }
            }
            s if s.starts_with("make docker-build docker-push") => {
                // No container engine here: the targets exist and expand to the image given.
                let dry = shell.run(&format!("make -n {}", s.trim_start_matches("make ")));
                assert!(dry.contains(&format!("build -t {image}")), "{dry}");
                assert!(dry.contains(&format!("push {image}")), "{dry}");
            }
            s if s.starts_with("make deploy IMG=") => {
                // Its pods never start in envtest: the manager `make run` started stays the
                // one that reconciles (and removes the samples' finalizers on delete).
                shell.run(&script);
                let image_in_cluster = shell.kubectl(
                    "get deployment -n rd-system rd-controller-manager -o jsonpath='{.spec.template.spec.containers[0].image}'",
                );
                assert_eq!(image_in_cluster, image);
            }
            "kubectl delete -k config/samples/" => {
                shell.run(&script);
                eventually(
                    &shell,
                    &mut manager,
                    "the samples to be deleted (their finalizers removed by the manager)",
                    "[ \"$(kubectl get memcached,widget -o name)\" = '' ] && echo gone",
                );
            }
            "make undeploy" => {
                shell.run(&script);
                // Stand in for the namespace controller envtest lacks: the objects in it are
                // gone, so finish the Namespace's deletion as kube-controller-manager would.
                shell.run(
                    "kubectl get namespace rd-system -o json \
                     | python3 -c 'import json,sys; d=json.load(sys.stdin); d[\"spec\"][\"finalizers\"]=[]; print(json.dumps(d))' \
                     | kubectl replace --raw /api/v1/namespaces/rd-system/finalize -f - >/dev/null",
                );
                eventually(
                    &shell,
                    &mut manager,
                    "the rd-system Namespace to be gone",
                    "kubectl get namespace rd-system >/dev/null 2>&1 || echo gone",
                );
                let left = shell.kubectl("get deployment -n rd-system --ignore-not-found -o name");
                assert_eq!(left, "", "make undeploy left {left}");
            }
            "make uninstall" => {
                // The README's case for it: CRDs from `make install` (undeploy removed the ones
                // deploy made).
                eventually(
                    &shell,
                    &mut manager,
                    "make undeploy to remove the CRDs",
                    "[ \"$(kubectl get crd -o name | { grep cache.example.com || true; })\" = '' ] && echo gone",
                );
                shell.run("make install");
                shell.run(&script);
                // The API server removes a CRD once its objects are gone (no waiting here).
                eventually(
                    &shell,
                    &mut manager,
                    "make uninstall to remove the CRDs",
                    "[ \"$(kubectl get crd -o name | { grep cache.example.com || true; })\" = '' ] && echo gone",
                );
            }
            s if s.starts_with("make build-installer IMG=") => {
                shell.run(&script);
                let installer = std::fs::read_to_string(project.join("dist/install.yaml")).unwrap();
                assert!(installer.contains(&format!("image: {image}")));
            }
            s if s.starts_with("make helm IMG=") => {
                shell.run(&script);
                let values =
                    std::fs::read_to_string(project.join("dist/chart/values.yaml")).unwrap();
                let (repository, tag) = image.rsplit_once(':').unwrap();
                assert!(
                    values.contains(&format!("repository: {repository}\n")),
                    "{values}"
                );
                assert!(values.contains(&format!("tag: {tag}\n")), "{values}");
                assert!(
                    project
                        .join("dist/chart/templates/manager/controller-manager.yaml")
                        .is_file()
                );
            }
            s if s.starts_with(
                "kubectl apply --server-side -f https://raw.githubusercontent.com/",
            ) =>
            {
                // No network: the same file, as build-installer wrote it.
                shell.run("kubectl apply --server-side -f dist/install.yaml");
                shell.kubectl("get deployment -n rd-system rd-controller-manager");
            }
            s if s.starts_with("make bundle VERSION=0.1.0 IMG=") => {
                let (bundle, build) = s.split_once('\n').unwrap();
                shell.run(bundle);
                let csv = std::fs::read_to_string(
                    project.join("bundle/manifests/rd.clusterserviceversion.yaml"),
                )
                .unwrap();
                assert!(csv.contains(&format!("image: {image}")), "{csv}");
                assert!(csv.contains("name: rd.v0.1.0"), "{csv}");
                assert!(
                    project
                        .join("config/manifests/bases/rd.clusterserviceversion.yaml")
                        .is_file()
                );
                shell.run("make verify-bundle");
                // No container engine here: the targets exist and expand to the image given.
                let dry = shell.run(&format!("make -n {}", build.trim_start_matches("make ")));
                let bundle_image = "registry.example.com/rd-bundle:v0.1.0";
                assert!(
                    dry.contains(&format!("build -f bundle.Dockerfile -t {bundle_image} .")),
                    "{dry}"
                );
                assert!(dry.contains(&format!("push {bundle_image}")), "{dry}");
            }
            s if s.starts_with("make manifests") => {
                shell.run(&script);
            }
            s if s.starts_with("make lint-api") => {
                let out = shell.run(&script);
                assert!(out.contains("lint: 0 warning(s)"), "{out}");
                assert!(
                    out.contains("verify-api: no release tag yet, nothing to compare with"),
                    "{out}"
                );
                assert!(project.join("docs/api/README.md").is_file(), "{out}");
                api_after_a_release(&shell);
            }
            s if s.starts_with("make fmt") => {
                // make build is the release build; make test runs the envtest tests.
                shell.run(&script);
            }
            other => panic!(
                "the scaffolded README has a command block this test does not know:\n{other}"
            ),
        }
        ran.push(script.lines().next().unwrap_or_default().to_owned());
    }
    drop(manager);
    assert_eq!(ran.len(), 17, "blocks run: {ran:#?}");
    assert!(
        shell.target.join("release/rd").is_file(),
        "make build wrote no binary"
    );
}
