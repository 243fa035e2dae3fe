//! Puts `libhccl.so` beside `libascendcl.so` in `target/<profile>/`: a symlink to the same
//! file. The dynamic loader identifies a library by its file (device and inode), so
//! opening either name maps the one library once and HCCL shares the ACL device state
//! (README, "HCCL"). The link is made before the library is linked; it dangles until then.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    // OUT_DIR is target/<profile>/build/<package>-<hash>/out.
    let Some(profile_dir) = PathBuf::from(out).ancestors().nth(3).map(PathBuf::from) else {
        return;
    };
    // Also in deps/, where `cargo test` leaves the freshly built library (it refreshes
    // target/<profile>/libascendcl.so only on `cargo build`).
    for dir in [profile_dir.clone(), profile_dir.join("deps")] {
        let link = dir.join("libhccl.so");
        if std::fs::read_link(&link).is_ok_and(|t| t == std::path::Path::new("libascendcl.so")) {
            continue;
        }
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        if let Err(e) = std::os::unix::fs::symlink("libascendcl.so", &link) {
            println!("cargo:warning=could not create {}: {e}", link.display());
        }
    }
}
