package dev.barrage.jdkclient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** The TLS trust of h1s and h2: the JDK's default store, or the CA certificates of --cacert instead. */
final class Trust {
    private Trust() {}

    /**
     * An SSLContext trusting the PEM certificates in CACERT (the suite's CA, lib/certs.sh); null
     * for none (the JDK's default context). Throws SetupFailure (exit 2) when the file cannot be read.
     */
    static SSLContext context(Path cacert) throws LoadRun.SetupFailure {
        if (cacert == null) return null;
        try (InputStream in = Files.newInputStream(cacert)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int n = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + n++, certificate);
            }
            if (n == 0) throw new GeneralSecurityException("no certificate in it");
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new LoadRun.SetupFailure(2, "--cacert " + cacert + ": " + e.getMessage());
        }
    }
}
