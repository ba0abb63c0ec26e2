// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.localcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SignatureException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the keytool steps leave behind: the stores a TLS cluster's brokers and clients are configured with. */
class ClusterCertificatesTest {

    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    @TempDir
    static Path dir;

    private static ClusterCertificates certificates;
    private static X509Certificate ca;

    @BeforeAll
    static void makeThem() throws Exception {
        certificates = new ClusterCertificates(dir.resolve("tls"));
        certificates.create();
        ca = (X509Certificate) load(certificates.truststore()).getCertificate("ca");
    }

    @Test
    void the_brokers_certificate_names_this_host_and_is_signed_by_the_ca_clients_trust() throws Exception {
        X509Certificate[] chain = chain(ClusterCertificates.BrokerCertificate.VALID);

        assertThat(chain).hasSize(2);
        assertThat(chain[1]).isEqualTo(ca);
        chain[0].verify(ca.getPublicKey());
        chain[0].checkValidity();
        assertThat(chain[0].getSubjectAlternativeNames()).containsExactlyInAnyOrder(
                List.of(SAN_IP, LoopbackPorts.HOST), List.of(SAN_DNS, "localhost"));
        assertThat(ca.getBasicConstraints()).as("a CA").isGreaterThanOrEqualTo(0);
    }

    @Test
    void the_expired_certificate_names_this_host_too_and_ended_before_today() throws Exception {
        X509Certificate expired = chain(ClusterCertificates.BrokerCertificate.EXPIRED)[0];

        expired.verify(ca.getPublicKey());
        assertThat(expired.getNotAfter()).isBefore(new Date());
        assertThat(expired.getSubjectAlternativeNames()).contains(List.of(SAN_IP, LoopbackPorts.HOST));
    }

    @Test
    void the_other_hosts_certificate_is_valid_but_names_only_that_host() throws Exception {
        X509Certificate otherHost = chain(ClusterCertificates.BrokerCertificate.OTHER_HOST)[0];

        otherHost.verify(ca.getPublicKey());
        otherHost.checkValidity();
        assertThat(otherHost.getSubjectAlternativeNames()).containsExactly(List.of(SAN_DNS, ClusterCertificates.OTHER_HOST));
    }

    @Test
    void the_foreign_truststore_trusts_another_ca_that_signed_no_broker_certificate() throws Exception {
        X509Certificate foreign = (X509Certificate) load(certificates.foreignTruststore()).getCertificate("ca");

        assertThat(foreign.getSubjectX500Principal()).isNotEqualTo(ca.getSubjectX500Principal());
        assertThatThrownBy(() -> chain(ClusterCertificates.BrokerCertificate.VALID)[0].verify(foreign.getPublicKey()))
                .isInstanceOf(SignatureException.class);
    }

    private static X509Certificate[] chain(ClusterCertificates.BrokerCertificate certificate) throws Exception {
        Certificate[] chain = load(certificates.keystore(certificate)).getCertificateChain("broker");
        return java.util.Arrays.copyOf(chain, chain.length, X509Certificate[].class);
    }

    private static KeyStore load(Path file) throws Exception {
        KeyStore store = KeyStore.getInstance(ClusterCertificates.STORE_TYPE);
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, ClusterCertificates.PASSWORD.toCharArray());
        }
        return store;
    }
}
