// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Signatures over bytes with the engineers' own SSH keys, made and checked by OpenSSH's {@code ssh-keygen -Y}
 * (OpenSSH 8.1+, the same file signatures {@code git} uses for SSH-signed commits): a key pair everyone has already,
 * and a verifier on every host, so nothing of the tool's own is trusted for the cryptography.
 */
public final class SshSignatures {

    /** Separates this tool's signatures from those of git or any other use of the same key (ssh-keygen's -n). */
    public static final String NAMESPACE = "kafka-unclean-recovery";

    private static final long TIMEOUT_SECONDS = 120;

    private SshSignatures() {
    }

    /** Why ssh-keygen said no, or could not be run: exit 2 for the tool (bad input, nothing changed). */
    public static final class SshKeygenException extends IOException {
        public SshKeygenException(String message) {
            super(message);
        }
    }

    /**
     * The armoured signature ({@code -----BEGIN SSH SIGNATURE-----}) of {@code data} with the private key
     * {@code key}, or with the agent's key when {@code key} is a public key the agent holds. A passphrase is asked for
     * on the terminal by ssh-keygen itself.
     */
    public static String sign(byte[] data, Path key) throws IOException {
        Result run = run(List.of("ssh-keygen", "-q", "-Y", "sign", "-n", NAMESPACE, "-f", key.toString()), data, true);
        if (run.exitCode != 0 || !run.out.contains("BEGIN SSH SIGNATURE")) {
            throw new SshKeygenException("ssh-keygen -Y sign -f " + key + " failed (exit " + run.exitCode + ")"
                    + (run.err.isBlank() ? "" : ": " + run.err.strip().replace('\n', ' ')));
        }
        return run.out;
    }

    /**
     * Checks that {@code signature} is {@code identity}'s over {@code data}, with a key {@code allowedSigners} lists
     * for that identity (ssh-keygen's allowed_signers format: {@code alice@example.com ssh-ed25519 AAAA...}).
     *
     * @return ssh-keygen's words on success: {@code Good "kafka-unclean-recovery" signature for alice with ED25519
     *         key SHA256:...}
     * @throws SshKeygenException with ssh-keygen's words when the signature does not verify
     */
    public static String verify(byte[] data, String signature, Path allowedSigners, String identity)
            throws IOException {
        Path signatureFile = DurableFiles.scratch("approval-signature-", signature.getBytes(StandardCharsets.UTF_8));
        try {
            Result run = run(List.of("ssh-keygen", "-Y", "verify", "-f", allowedSigners.toString(), "-I", identity,
                    "-n", NAMESPACE, "-s", signatureFile.toString()), data, false);
            String said = (run.out + " " + run.err).strip().replaceAll("\\s+", " ");
            if (run.exitCode != 0) {
                throw new SshKeygenException("ssh-keygen -Y verify: " + (said.isEmpty() ? "exit " + run.exitCode : said));
            }
            return said;
        } finally {
            DurableFiles.delete(signatureFile);
        }
    }

    private record Result(int exitCode, String out, String err) {
    }

    /** Runs ssh-keygen with {@code input} on its standard input; with {@code terminal}, a prompt reaches the user. */
    private static Result run(List<String> command, byte[] input, boolean terminal) throws IOException {
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new SshKeygenException("cannot run ssh-keygen (OpenSSH's, 8.1 or later: install openssh-client): "
                    + e.getMessage());
        }
        // Both outputs read while the input is written: a full pipe on either side would stall the other.
        CompletableFuture<String> out = OnItsOwnThread.run("ssh-keygen-out", () -> readAll(process.getInputStream()));
        CompletableFuture<String> err = OnItsOwnThread.run("ssh-keygen-err", () -> readAll(process.getErrorStream()));
        try (OutputStream stdin = process.getOutputStream()) {
            stdin.write(input);
        } catch (IOException e) {
            // ssh-keygen stopped reading (a missing key file): its exit code and words say why
        }
        try {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new SshKeygenException("ssh-keygen did not finish within " + TIMEOUT_SECONDS + " s"
                        + (terminal ? " (waiting for a passphrase?)" : ""));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new SshKeygenException("interrupted while ssh-keygen ran");
        }
        return new Result(process.exitValue(), OnItsOwnThread.join(out), OnItsOwnThread.join(err));
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
