"""The match keeps the number of its next event, so logging one needs no query."""

from django.db import migrations, models
from django.db.models import Max


def count_existing_events(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    for match in Match.objects.annotate(last=Max("events__sequence")).exclude(last=None):
        Match.objects.filter(pk=match.pk).update(next_sequence=match.last + 1)


class Migration(migrations.Migration):
    dependencies = [("matches", "0010_match_rematch_offers")]

    operations = [
        migrations.AddField(
            model_name="match",
            name="next_sequence",
            field=models.PositiveIntegerField(default=0, editable=False,
                                              verbose_name="next event number"),
        ),
        migrations.RunPython(count_existing_events, migrations.RunPython.noop),
    ]
