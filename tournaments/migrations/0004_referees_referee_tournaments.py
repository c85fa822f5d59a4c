"""The Referees group referees tournaments: it sees tournaments, entries, rounds, pairings
and their log, and has ``tournaments.referee_tournament`` (enter and correct results, record
double forfeits, reinstate players). It edits no tournament settings."""

from django.db import migrations

REFEREES = "Referees"
PERMISSIONS = [
    ("tournaments", "view_tournament"),
    ("tournaments", "view_entry"),
    ("tournaments", "view_round"),
    ("tournaments", "view_pairing"),
    ("tournaments", "view_tournamentlog"),
    ("tournaments", "referee_tournament"),
]


def grant(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    alias = schema_editor.connection.alias
    # Permissions are normally created after all migrations ran; this one needs them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0, using=alias)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.using(alias).get_or_create(name=REFEREES)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(Permission.objects.using(alias).get(
            content_type__app_label=app_label, codename=codename))


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    alias = schema_editor.connection.alias
    group = Group.objects.using(alias).filter(name=REFEREES).first()
    if group is not None:
        group.permissions.remove(*Permission.objects.using(alias).filter(
            content_type__app_label="tournaments",
            codename__in=[codename for _app, codename in PERMISSIONS]))


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("matches", "0003_referees_group"),
        ("tournaments", "0003_forfeit_rules_and_referees"),
    ]

    operations = [
        migrations.RunPython(grant, revoke),
    ]
