"""Persian digits in the text of Persian pages, and nowhere else."""

from __future__ import annotations

from django.test import Client, override_settings

from tavla.persian_digits import persian_digits_in_html


def test_text_digits_become_persian_and_markup_stays() -> None:
    html = ('<p class="p2" data-n="12">Round 12 &#39;x&#39; &amp; 3</p>'
            '<script>const n = 12;</script><style>.a{width:10px}</style>'
            '<code>{"rounds": 5}</code><pre>3-1</pre><textarea>7</textarea><!-- 9 -->'
            '<a href="/tables/4/">4</a>')
    assert persian_digits_in_html(html) == (
        '<p class="p2" data-n="12">Round ۱۲ &#39;x&#39; &amp; ۳</p>'
        '<script>const n = 12;</script><style>.a{width:10px}</style>'
        '<code>{"rounds": 5}</code><pre>3-1</pre><textarea>7</textarea><!-- 9 -->'
        '<a href="/tables/4/">۴</a>')


@override_settings(LANGUAGE_CODE="en")
def test_only_persian_html_pages_change(db: None) -> None:
    client = Client()
    client.cookies["django_language"] = "fa"
    persian = client.get("/tournaments/rules/").content.decode()
    assert "۱" in persian and "۵" in persian
    client.cookies["django_language"] = "tr"
    turkish = client.get("/tournaments/rules/").content.decode()
    assert "۱" not in turkish and "5" in turkish
    client.cookies["django_language"] = "fa"
    schema = client.get("/api/schema/")
    assert schema.content.decode().startswith("openapi: 3.")  # not HTML: left alone
