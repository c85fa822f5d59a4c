"""Referees read table chat, review reports and remove messages (each removal is logged)."""

from django.db import migrations

REFEREES = "Referees"
PERMISSIONS = [
    ("matches", "moderate_chat"),
    ("matches", "view_chatmessage"),
    ("matches", "view_chatreport"),
    ("matches", "change_chatreport"),
    ("matches", "view_chatmoderation"),
]


def grant(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    alias = schema_editor.connection.alias
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
            content_type__app_label="matches", codename__in=[c for _a, c in PERMISSIONS]))


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0006_table_chat"),
        ("matches", "0003_referees_group"),
    ]

    operations = [
        migrations.RunPython(grant, revoke),
    ]
