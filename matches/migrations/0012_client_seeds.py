from django.db import migrations, models


class Migration(migrations.Migration):
    """Client seeds: both players contribute to the dice (docs/dice.md). Matches that exist
    already keep the server-seed-only algorithm they were rolled with (dice_algorithm 0)."""

    dependencies = [
        ("matches", "0011_match_next_sequence"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="client_seed0",
            field=models.CharField(blank=True, max_length=128, null=True,
                                   verbose_name="first player's client seed"),
        ),
        migrations.AddField(
            model_name="match",
            name="client_seed1",
            field=models.CharField(blank=True, max_length=128, null=True,
                                   verbose_name="second player's client seed"),
        ),
        migrations.AddField(
            model_name="match",
            name="client_seeds_due",
            field=models.DateTimeField(blank=True, db_index=True, null=True,
                                       verbose_name="client seeds accepted until"),
        ),
        migrations.AddField(
            model_name="match",
            name="dice_algorithm",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="dice algorithm"),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="match",
            name="dice_algorithm",
            field=models.PositiveSmallIntegerField(default=1, verbose_name="dice algorithm"),
        ),
    ]
