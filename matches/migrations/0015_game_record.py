"""Each finished game keeps its whole record in its Game row, so that the match's snapshot can
keep only the current game's events. The games played before this migration have their
records copied from their match's snapshot, which still holds every game."""

from django.db import migrations, models


def copy_records(apps, schema_editor):
    game_model = apps.get_model("matches", "Game")
    games = game_model.objects.filter(record__isnull=True).select_related("match")
    for game in games.iterator(chunk_size=500):
        for record in game.match.snapshot.get("games", []):
            if record.get("number") == game.number and record.get("result") is not None:
                game.record = record
                game.save(update_fields=["record"])
                break


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0014_match_table_newest'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='record',
            field=models.JSONField(blank=True, editable=False, null=True, verbose_name='record'),
        ),
        migrations.RunPython(copy_records, migrations.RunPython.noop),
    ]
