"""The "Referees" group: review every match and adjudicate, but edit no table or user."""

from django.db import migrations

REFEREES = "Referees"
PERMISSIONS = [
    ("matches", "view_player"),
    ("matches", "view_table"),
    ("matches", "view_match"),
    ("matches", "view_game"),
    ("matches", "view_event"),
    ("matches", "view_ratingrecord"),
    ("matches", "adjudicate_match"),
]


def create_referees(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after all migrations ran; this one needs them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0,
                           using=schema_editor.connection.alias)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.using(schema_editor.connection.alias).get_or_create(
        name=REFEREES)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(Permission.objects.using(schema_editor.connection.alias).get(
            content_type__app_label=app_label, codename=codename))


def remove_referees(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.using(schema_editor.connection.alias).filter(name=REFEREES).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("matches", "0002_match_adjudicate_permission"),
    ]

    operations = [
        migrations.RunPython(create_referees, remove_referees),
    ]
