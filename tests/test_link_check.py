"""Internal links are checked as Zola checks them (rawlinks.py): a post's link to a page, a section of a page (an id)
or a file the site does not have is a warning at its line, with the page or id most like it; what a server and a
browser would find is not."""

from __future__ import annotations

from helpers import make_site, run_cli, write_post

LINKS = """Fine: [b](/blog/2024/Hello-World/), [rel](../hello-world-2/), [frag](/blog/2024/hello-world-2/#top),
[about](/about), [about too](/about/), [home](/), [feed](/feed.xml), [tag](/blog/tag/x/), [query](/search/?q=x),
[elsewhere](https://example.net/nope/), [mail](mailto:a@b.c), [server](/cgi/form.php),
[version](/blog/2024/claude-3.5/), [section](#details), [its section](/blog/2024/hello-world-2/#more).

## Details

Sections: [mistyped](#detials) and [gone](/blog/2024/hello-world-2/#nope)

Case: [b lower](/blog/2024/hello-world/)

Gone: [about html](/about.html) and <a href="/blog/2023/hello-world-2/">raw</a>

Host: [code](github.com/j2kun) and [site](www.example.org)

File: [slides](files/slides.pdf)
"""


def test_links_to_pages_and_files_the_site_lacks_are_warnings_at_their_lines(tmp_path):
    site = make_site(tmp_path / "site")
    path = write_post(site, "a.md", "title: A\ndate: 2024-01-01\ntags: [x]", LINKS)
    write_post(site, "b.md", "title: B\ndate: 2024-01-02\npermalink: /blog/2024/Hello-World/")
    write_post(site, "c.md", "title: C\ndate: 2024-01-03\npermalink: /blog/2024/hello-world-2/", "## More\n\nx\n")
    write_post(site, "d.md", "title: D\ndate: 2024-01-04\npermalink: /blog/2024/claude-3.5/")
    (site / "content/pages").mkdir(parents=True)
    (site / "content/pages/about.md").write_text("---\ntitle: About\n---\n\nMe.\n", encoding="utf-8")
    text = path.read_text(encoding="utf-8").splitlines()
    starts = ("Sections:", "Case:", "Gone:", "Host:", "File:")
    sections, case, gone, host, file = (text.index(t) + 1 for t in [t for t in text if t.startswith(starts)])
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if " links to " in line]
    assert warned == [
        f"warning: content/posts/a.md:{sections}: links to a section the page does not have: link '#detials', link"
        " '/blog/2024/hello-world-2/#nope', broken in the page (fix the link (did you mean #details?))",
        f"warning: content/posts/a.md:{case}: links to a page the site does not have: link"
        " '/blog/2024/hello-world/', broken in the page (fix the link (did you mean /blog/2024/Hello-World/?))",
        f"warning: content/posts/a.md:{gone}: links to a page the site does not have: link '/about.html', <a href>"
        " '/blog/2023/hello-world-2/', broken in the page (fix the link (did you mean /about/, /blog/2024/hello-world-2/?))",
        f"warning: content/posts/a.md:{host}: links to a page the site does not have: link 'github.com/j2kun'"
        " (/blog/2024/a/github.com/j2kun), link 'www.example.org' (/blog/2024/a/www.example.org), broken in the page"
        " (fix the link (did you mean https://github.com/j2kun, https://www.example.org?))",
        f"warning: content/posts/a.md:{file}: links to a file the site does not have: link 'files/slides.pdf'"
        " (/blog/2024/a/files/slides.pdf), broken in the page (put the file in static/, which is published at the"
        " site's root, or fix the path)",
    ], proc.stderr
    strict = run_cli("build", "--strict", "--source", str(site))
    assert strict.returncode == 1 and strict.stderr.strip().endswith("5 warnings are errors under --strict")
    (site / "content/posts/a.md").write_text(path.read_text().split("\nSections:")[0] + "\n", encoding="utf-8")
    assert run_cli("build", "--strict", "--source", str(site)).returncode == 0  # fixed: nothing to say
