// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.uncleanrecovery.formats.Json;
import dev.uncleanrecovery.formats.Plan;
import dev.uncleanrecovery.formats.PlannedElection;
import dev.uncleanrecovery.formats.ResultFile;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan's page in a real browser, at a desktop's width and at a narrow window's: Debian's Chromium, headless,
 * loads the file with no network, and its DOM, the boxes it laid out and a screenshot show what a reviewer sees.
 * The boxes are read by a script added to a copy of the page (the page itself has none): nothing reaches past the
 * window's width, no text of a drawing leaves the drawing or overlaps another, and each is drawn at a size that can
 * be read. Skipped, with the reason, where no chromium is installed; CI installs it and checks that this test ran.
 * The screenshots in docs/ are theirs at 1040 px: plan-html.png of the example plan, plan-html-result.png of a plan
 * of several groups and its result; {@code -Dplan.page.docs=true} writes them again.
 */
class PlanPageBrowserTest {

    private static final Path OUT = Path.of("tool", "target", "plan-page");
    /** A desktop browser's window, and a narrow one (a laptop's split screen, a tablet). */
    private static final int WIDE = 1040;
    private static final int NARROW = 600;
    /** The smallest text a drawing may show, in CSS pixels. */
    private static final double LEGIBLE_PX = 10;
    private static String chromium;

    @BeforeAll
    static void findChromium() throws IOException {
        chromium = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser").stream()
                .filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
        Assumptions.assumeTrue(chromium != null,
                "no chromium here (apt-get install chromium): the page is not rendered");
        Files.createDirectories(OUT);
    }

    @Test
    void the_example_plan_renders_with_its_replicas_drawn_and_makes_the_documented_screenshot() throws Exception {
        Plan plan = PagePlans.example();
        Path page = write("example", plan, "plan.json", null, null);

        for (int width : new int[] {WIDE, NARROW}) {
            Path png = OUT.resolve("example-" + width + ".png");
            Opened opened = open(page, png, width, 1400);

            assertEveryPartitionIsOn(opened.dom(), plan);
            assertLaidOutToBeRead(opened, width, 1);
            // one drawing, a row per replica, whose text the window shows
            assertThat(PagePlans.occurrences(opened.dom(), "<g class=\"replica")).isEqualTo(2 * plan.partitions().get(0)
                    .expected().replicas().size());
            assertThat(opened.shownText()).contains("\u2605 broker " + plan.partitions().get(0).designatedLeader(),
                    "last written epoch", "new log end", "HW ");
            BufferedImage image = ImageIO.read(png.toFile());
            assertThat(image.getWidth()).isEqualTo(width);
            // the green of the kept leader's log and the page's white sections are on the screenshot: it is drawn
            assertThat(share(image, 0x2f855a)).isGreaterThan(0.001);
            assertThat(distinctColours(image)).isGreaterThan(50);
        }
        if (Boolean.getBoolean("plan.page.docs")) {
            Files.copy(OUT.resolve("example-" + WIDE + ".png"), Path.of("docs", "plan-html.png"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void every_group_of_a_plan_and_its_result_renders_with_cuts_told_apart_at_both_widths() throws Exception {
        Plan plan = PagePlans.severalGroups();
        ResultFile result = PagePlans.resultOf(plan);
        Path page = write("several-groups", plan, "plan-20261204-031200.json", result,
                "plan-20261204-031200-result.json");

        for (int width : new int[] {WIDE, NARROW}) {
            Path png = OUT.resolve("several-groups-" + width + ".png");
            Opened opened = open(page, png, width, 2600);

            assertEveryPartitionIsOn(opened.dom(), plan);
            // orders-0..3 share a section; payments-0 and audit.log-2 have their own
            assertLaidOutToBeRead(opened, width, 3);
            assertThat(opened.dom()).contains("orders-0..3 (4 partitions)", "<rect class=\"cut-committed\"",
                    "<rect class=\"cut-never\"", "<rect class=\"cut-unknown\"", "<rect class=\"salvaged\"",
                    "ELECTED ×4", ">REFUSED<");
            // the hostile group name is text, not an element
            assertThat(opened.dom()).contains("&lt;img src=x onerror=alert(1)&gt;").doesNotContain("<img");
            BufferedImage image = ImageIO.read(png.toFile());
            assertThat(image.getWidth()).isEqualTo(width);
            assertThat(share(image, 0xc53030)).as("committed cut, red").isGreaterThan(0.0002);
            assertThat(share(image, 0x2f855a)).as("leaders, green").isGreaterThan(0.001);
        }
        if (Boolean.getBoolean("plan.page.docs")) {
            Files.copy(OUT.resolve("several-groups-" + WIDE + ".png"), Path.of("docs", "plan-html-result.png"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * What the layout probe measured: nothing wider than the window, the drawings of the layout for this width at
     * their own size (not shrunk), their text inside them, apart, and large enough to read.
     */
    private static void assertLaidOutToBeRead(Opened opened, int width, int drawings) {
        JsonNode probe = opened.probe();
        assertThat(probe.get("viewport").asInt()).isEqualTo(width);
        assertThat(probe.get("scrollWidth").asInt()).as("the page reaches past the window").isLessThanOrEqualTo(width);
        List<String> problems = new ArrayList<>();
        probe.get("problems").forEach(p -> problems.add(p.asText()));
        assertThat(problems).as("at " + width + " px").isEmpty();
        JsonNode shown = probe.get("drawings");
        assertThat(shown).as("drawings shown").hasSize(drawings);
        String layout = width >= 1000 ? "wide" : "narrow";
        shown.forEach(d -> {
            assertThat(d.get("layout").asText()).isEqualTo(layout);
            // drawn at least at 95% of its size: the narrow layout is not the wide one shrunk
            assertThat(d.get("scale").asDouble()).as(d.toString()).isGreaterThan(0.95);
            assertThat(d.get("right").asDouble()).isLessThanOrEqualTo(width);
        });
        assertThat(probe.get("smallestText").asDouble()).isGreaterThanOrEqualTo(LEGIBLE_PX);
    }

    /** Each partition to elect and each skipped one is named on the page, by itself or in its group's list. */
    private static void assertEveryPartitionIsOn(String dom, Plan plan) {
        Set<String> named = new HashSet<>();
        Matcher m = Pattern.compile("[A-Za-z0-9._-]+-\\d+").matcher(dom.replaceAll("<[^>]*>", " "));
        while (m.find()) {
            named.add(m.group());
        }
        List<String> all = new ArrayList<>();
        plan.partitions().stream().map(PlannedElection::topicPartition).forEach(tp -> all.add(tp.toString()));
        plan.skipped().forEach(s -> all.add(s.topicPartition().toString()));
        assertThat(named).containsAll(all);
    }

    private static Path write(String name, Plan plan, String planName, ResultFile result, String resultName)
            throws IOException {
        Path page = OUT.resolve(name + ".html");
        Files.deleteIfExists(page);
        PlanPage.write(page, plan, planName, result, resultName);
        return page;
    }

    /**
     * The page loaded once at {@code width}: its DOM after layout, what the probe measured, the text of the drawings
     * the window shows, and a screenshot into {@code png}.
     */
    private record Opened(String dom, JsonNode probe, String shownText) {
    }

    private static Opened open(Path page, Path png, int width, int height) throws Exception {
        // the probe goes into a copy: the page itself holds no script
        Path probed = OUT.resolve(page.getFileName().toString().replace(".html", "-probed-" + width + ".html"));
        Files.writeString(probed, Files.readString(page).replace("</body>", "<script>" + PROBE + "</script></body>"));
        Files.deleteIfExists(png);
        String dom = new String(run(List.of("--dump-dom", "--screenshot=" + png.toAbsolutePath(),
                "--window-size=" + width + "," + height, "--hide-scrollbars", probed.toUri().toString())),
                StandardCharsets.UTF_8);
        assertThat(png).exists();
        assertThat(Files.size(png)).as("a screenshot with something on it").isGreaterThan(20_000);
        Matcher found = Pattern.compile("<pre id=\"layout-probe\"[^>]*>(.*?)</pre>", Pattern.DOTALL).matcher(dom);
        assertThat(found.find()).as("the layout probe ran").isTrue();
        JsonNode probe = Json.mapper().readTree(found.group(1).replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&"));
        return new Opened(dom, probe, probe.get("shownText").asText());
    }

    /**
     * Measures the laid-out page in the browser: the document's width against the window's; per drawing shown, its
     * layout, the scale it is drawn at and its right edge; per text of a drawing, whether it leaves the drawing,
     * overlaps another, or is smaller than {@link #LEGIBLE_PX} on the screen.
     */
    private static final String PROBE = """
            (function () {
              var problems = [], drawings = [], shown = [], smallest = 1e9;
              var vw = document.documentElement.clientWidth;
              document.querySelectorAll('svg.logs').forEach(function (svg) {
                var box = svg.getBoundingClientRect();
                if (box.width === 0) { return; }
                var scale = box.width / svg.viewBox.baseVal.width;
                drawings.push({layout: svg.classList.contains('wide') ? 'wide' : 'narrow', scale: scale,
                    right: box.right});
                var texts = [];
                svg.querySelectorAll('text').forEach(function (t) {
                  var r = t.getBoundingClientRect();
                  shown.push(t.textContent);
                  var px = parseFloat(getComputedStyle(t).fontSize) * scale;
                  smallest = Math.min(smallest, px);
                  if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
                      || r.bottom > box.bottom + 0.5) {
                    problems.push('leaves its drawing: ' + t.textContent);
                  }
                  texts.forEach(function (o) {
                    var w = Math.min(r.right, o.r.right) - Math.max(r.left, o.r.left);
                    var h = Math.min(r.bottom, o.r.bottom) - Math.max(r.top, o.r.top);
                    if (w > 1 && h > 1) {
                      problems.push('overlaps: "' + t.textContent + '" and "' + o.text + '"');
                    }
                  });
                  texts.push({r: r, text: t.textContent});
                });
              });
              document.querySelectorAll('body *').forEach(function (el) {
                var r = el.getBoundingClientRect();
                if (r.width > 0 && r.right > vw + 0.5 && !el.closest('svg.defs')) {
                  problems.push('reaches past the window: <' + el.tagName + ' class="' + el.getAttribute('class')
                      + '"> to ' + Math.round(r.right) + ' px');
                }
              });
              var pre = document.createElement('pre');
              pre.id = 'layout-probe';
              pre.hidden = true;
              pre.textContent = JSON.stringify({viewport: vw, scrollWidth: document.documentElement.scrollWidth,
                  drawings: drawings, smallestText: smallest, problems: problems, shownText: shown.join('\\n')});
              document.body.appendChild(pre);
            })();
            """;

    /** Chromium headless with no network and a profile of its own in target/, so nothing of the user's is read. */
    private static byte[] run(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--proxy-server=127.0.0.1:9",
                "--proxy-bypass-list=<-loopback>",
                "--user-data-dir=" + OUT.resolve("profile").toAbsolutePath()));
        command.addAll(args);
        Path log = OUT.resolve("chromium.log");
        Process browser = new ProcessBuilder(command).redirectError(log.toFile()).start();
        browser.getOutputStream().close();
        byte[] out = browser.getInputStream().readAllBytes();
        assertThat(browser.waitFor(60, TimeUnit.SECONDS)).as("chromium ended").isTrue();
        assertThat(browser.exitValue()).as(Files.readString(log)).isZero();
        return out;
    }

    /** The share of pixels within a few steps of {@code rgb}. */
    private static double share(BufferedImage image, int rgb) {
        long near = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int p = image.getRGB(x, y);
                if (Math.abs(((p >> 16) & 0xff) - ((rgb >> 16) & 0xff)) <= 6 && Math.abs(((p >> 8) & 0xff)
                        - ((rgb >> 8) & 0xff)) <= 6 && Math.abs((p & 0xff) - (rgb & 0xff)) <= 6) {
                    near++;
                }
            }
        }
        return (double) near / ((long) image.getWidth() * image.getHeight());
    }

    private static int distinctColours(BufferedImage image) {
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                colours.add(image.getRGB(x, y) & 0xffffff);
            }
        }
        return colours.size();
    }
}
