// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The TLS material of a {@link ClusterSecurity#SASL_SSL_WITH_ACLS} cluster, made with the JDK's {@code keytool} when
 * the cluster starts, in {@code <cluster directory>/tls} (nothing is checked in). EC P-256 keys: quick to make and to
 * shake hands with. Every store is PKCS12 with the password {@value #PASSWORD}.
 *
 * <pre>
 * ca-key.p12              the cluster's CA: its key and self-signed certificate
 * foreign-ca.p12          another CA
 * broker-key.p12, .csr    the brokers' key and its certificate request; broker*.pem, what the CA signed
 * broker.p12              the brokers' key with a certificate of the CA for 127.0.0.1 and localhost, and the CA's
 * broker-expired.p12      the same key, a certificate of the CA for the same names that expired two days ago
 * broker-other-host.p12   the same key, a valid certificate of the CA that names only {@value #OTHER_HOST}
 * truststore.p12          the CA's certificate: what a client of the cluster trusts
 * foreign-truststore.p12  the certificate of another CA, which signed none of the brokers' certificates
 * keytool.log             what keytool printed
 * </pre>
 */
public final class ClusterCertificates {

    /** The password of every key and store. */
    public static final String PASSWORD = "local-cluster-secret";
    /** The type of every store. */
    public static final String STORE_TYPE = "PKCS12";
    /** The only name the certificate of {@link TlsListener#OTHER_HOST_CERTIFICATE} holds. */
    public static final String OTHER_HOST = "other-host.invalid";

    private static final String KEY_ALIAS = "broker";
    private static final String CA_ALIAS = "ca";
    private static final String NAMES_OF_THIS_HOST = "SAN=ip:" + LoopbackPorts.HOST + ",dns:localhost";
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    /** The certificates a broker listener may present. */
    enum BrokerCertificate {
        VALID("broker"), EXPIRED("broker-expired"), OTHER_HOST("broker-other-host");

        private final String fileName;

        BrokerCertificate(String fileName) {
            this.fileName = fileName;
        }
    }

    private final Path directory;

    ClusterCertificates(Path directory) {
        this.directory = directory;
    }

    /** What clients trust: the CA that signed every broker certificate. */
    public Path truststore() {
        return directory.resolve("truststore.p12");
    }

    /** A truststore of another CA: a client that uses it trusts none of the brokers. */
    public Path foreignTruststore() {
        return directory.resolve("foreign-truststore.p12");
    }

    Path keystore(BrokerCertificate certificate) {
        return directory.resolve(certificate.fileName + ".p12");
    }

    /** ssl.truststore.* for a client of the cluster. */
    Map<String, String> clientTruststoreProperties() {
        return Map.of("ssl.truststore.location", truststore().toString(),
                "ssl.truststore.password", PASSWORD,
                "ssl.truststore.type", STORE_TYPE);
    }

    /**
     * Makes every file: the three keys at once, then the brokers' certificate request, then the three certificates
     * the CA signs at once (keytool is a JVM each time: run side by side, a few seconds in all); the stores are
     * put together here.
     */
    void create() {
        try {
            Files.createDirectories(directory);
            Path javaHome = Path.of(System.getProperty("java.home"));
            Keytool keytool = new Keytool(javaHome.resolve("bin").resolve("keytool"), directory);
            keytool.runAll(List.of(
                    keytool.genkeypair("ca-key.p12", CA_ALIAS, "CN=local Kafka cluster CA", "-ext", "bc:c"),
                    keytool.genkeypair("foreign-ca.p12", CA_ALIAS, "CN=another CA", "-ext", "bc:c"),
                    keytool.genkeypair("broker-key.p12", KEY_ALIAS, "CN=localhost")));
            keytool.runAll(List.of(keytool.command("-certreq", "-keystore", "broker-key.p12", "-alias", KEY_ALIAS,
                    "-file", "broker.csr")));
            keytool.runAll(List.of(
                    keytool.gencert(BrokerCertificate.VALID, "-validity", "30", "-ext", NAMES_OF_THIS_HOST),
                    // from three days ago, valid for one
                    keytool.gencert(BrokerCertificate.EXPIRED, "-startdate", "-3d", "-validity", "1",
                            "-ext", NAMES_OF_THIS_HOST),
                    keytool.gencert(BrokerCertificate.OTHER_HOST, "-validity", "30", "-dname", "CN=" + OTHER_HOST,
                            "-ext", "SAN=dns:" + OTHER_HOST)));

            KeyStore brokerKey = load(directory.resolve("broker-key.p12"));
            PrivateKey key = (PrivateKey) brokerKey.getKey(KEY_ALIAS, PASSWORD.toCharArray());
            X509Certificate ca = (X509Certificate) load(directory.resolve("ca-key.p12")).getCertificate(CA_ALIAS);
            for (BrokerCertificate certificate : BrokerCertificate.values()) {
                KeyStore keystore = empty();
                keystore.setKeyEntry(KEY_ALIAS, key, PASSWORD.toCharArray(),
                        new Certificate[] {readCertificate(directory.resolve(certificate.fileName + ".pem")), ca});
                store(keystore, keystore(certificate));
            }
            store(trusting(ca), truststore());
            store(trusting(load(directory.resolve("foreign-ca.p12")).getCertificate(CA_ALIAS)), foreignTruststore());
        } catch (IOException e) {
            throw new UncheckedIOException("could not make the cluster's TLS certificates in " + directory, e);
        } catch (GeneralSecurityException e) {
            throw new LocalClusterException("could not make the cluster's TLS certificates in " + directory + ": " + e, e);
        }
    }

    private static KeyStore trusting(Certificate ca) throws GeneralSecurityException, IOException {
        KeyStore truststore = empty();
        truststore.setCertificateEntry(CA_ALIAS, ca);
        return truststore;
    }

    private static KeyStore empty() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(STORE_TYPE);
        store.load(null, null);
        return store;
    }

    private static KeyStore load(Path file) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(STORE_TYPE);
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static void store(KeyStore store, Path file) throws GeneralSecurityException, IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, PASSWORD.toCharArray());
        }
    }

    private static X509Certificate readCertificate(Path pem) throws GeneralSecurityException, IOException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** keytool runs in the directory, with small-JVM flags, its output appended to keytool.log. */
    private record Keytool(Path binary, Path directory) {

        List<String> genkeypair(String keystore, String alias, String distinguishedName, String... more) {
            List<String> command = command("-genkeypair", "-keystore", keystore, "-alias", alias, "-keyalg", "EC",
                    "-groupname", "secp256r1", "-dname", distinguishedName, "-validity", "30");
            command.addAll(List.of(more));
            return command;
        }

        /** The CA signs the brokers' request: {@code <certificate>.pem}. */
        List<String> gencert(BrokerCertificate certificate, String... more) {
            List<String> command = command("-gencert", "-keystore", "ca-key.p12", "-alias", CA_ALIAS,
                    "-infile", "broker.csr", "-outfile", certificate.fileName + ".pem", "-rfc");
            command.addAll(List.of(more));
            return command;
        }

        List<String> command(String... arguments) {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "-J-XX:TieredStopAtLevel=1",
                    "-J-XX:+UseSerialGC", "-J-Xshare:auto", "-noprompt", "-storetype", STORE_TYPE,
                    "-storepass", PASSWORD, "-keypass", PASSWORD));
            command.addAll(List.of(arguments));
            return command;
        }

        /** Runs the commands side by side and waits for all of them. */
        void runAll(List<List<String>> commands) throws IOException {
            Path log = directory.resolve("keytool.log");
            List<Process> running = new ArrayList<>();
            for (List<String> command : commands) {
                Files.writeString(log, "$ " + String.join(" ", command) + "\n", java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND);
                running.add(new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start());
            }
            for (int i = 0; i < running.size(); i++) {
                Process process = running.get(i);
                try {
                    if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                        throw new LocalClusterException("keytool did not finish within " + KEYTOOL_TIMEOUT_SECONDS
                                + " s: " + String.join(" ", commands.get(i)));
                    }
                } catch (InterruptedException e) {
                    running.forEach(Process::destroyForcibly);
                    Thread.currentThread().interrupt();
                    throw new LocalClusterException("interrupted while keytool ran", e);
                }
                if (process.exitValue() != 0) {
                    throw new LocalClusterException("keytool failed (exit " + process.exitValue() + "): "
                            + String.join(" ", commands.get(i)) + "; its output is in " + log);
                }
            }
        }
    }
}
