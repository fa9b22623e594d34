//! Certificates made for one test: a private authority, a node certificate for `localhost` and
//! `127.0.0.1`, and the bad ones TLS tests need, written as PEM files into a temporary directory.
//!
//! Keys are fresh ECDSA P-256 keys from `rcgen`; nothing is read from or written outside the
//! directory, which is deleted when the [`TestPki`] drops.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// An authority that signs certificates, kept in memory with its PEM file.
pub struct TestCa {
    cert: Certificate,
    key: KeyPair,
    /// The authority's certificate, PEM.
    pub cert_file: PathBuf,
}

impl std::fmt::Debug for TestCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCa")
            .field("cert_file", &self.cert_file)
            .finish_non_exhaustive()
    }
}

/// A certificate and its key, as PEM files.
#[derive(Debug, Clone)]
pub struct CertFiles {
    /// The certificate, PEM.
    pub cert: PathBuf,
    /// Its private key, PEM (PKCS#8).
    pub key: PathBuf,
}

/// A directory of test certificates.
#[derive(Debug)]
pub struct TestPki {
    dir: tempfile::TempDir,
}

impl Default for TestPki {
    fn default() -> Self {
        Self::new()
    }
}

impl TestPki {
    /// An empty directory for certificates.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary directory for certificates"),
        }
    }

    /// The directory holding the files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A new self-signed authority, saved as `<name>-ca.pem`.
    pub fn ca(&self, name: &str) -> TestCa {
        let key = KeyPair::generate().expect("CA key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, format!("xrpc test CA {name}"));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).expect("self-signed CA");
        let cert_file = self.write(&format!("{name}-ca.pem"), &cert.pem());
        TestCa {
            cert,
            key,
            cert_file,
        }
    }

    /// A node certificate for `localhost` and `127.0.0.1`, signed by `ca`, valid now.
    pub fn server_cert(&self, ca: &TestCa, name: &str) -> CertFiles {
        self.leaf(ca, name, ExtendedKeyUsagePurpose::ServerAuth, false)
    }

    /// Like [`server_cert`](Self::server_cert), but valid only during the year 2000.
    pub fn expired_server_cert(&self, ca: &TestCa, name: &str) -> CertFiles {
        self.leaf(ca, name, ExtendedKeyUsagePurpose::ServerAuth, true)
    }

    /// A client certificate signed by `ca`.
    pub fn client_cert(&self, ca: &TestCa, name: &str) -> CertFiles {
        self.leaf(ca, name, ExtendedKeyUsagePurpose::ClientAuth, false)
    }

    /// Writes `text` to `name` in the directory (replacing it) and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write a PEM file");
        path
    }

    fn leaf(
        &self,
        ca: &TestCa,
        name: &str,
        usage: ExtendedKeyUsagePurpose,
        expired: bool,
    ) -> CertFiles {
        let key = KeyPair::generate().expect("leaf key");
        let mut params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .expect("leaf params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![usage];
        if expired {
            params.not_before = rcgen::date_time_ymd(2000, 1, 1);
            params.not_after = rcgen::date_time_ymd(2000, 12, 31);
        }
        let cert = params
            .signed_by(&key, &ca.cert, &ca.key)
            .expect("signed leaf");
        CertFiles {
            cert: self.write(&format!("{name}.pem"), &cert.pem()),
            key: self.write(&format!("{name}-key.pem"), &key.serialize_pem()),
        }
    }
}
