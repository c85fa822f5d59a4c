"""Referees may read gnubg's analyses and the fair-play review."""

from django.db import migrations


def allow(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0,
                           using=schema_editor.connection.alias)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    alias = schema_editor.connection.alias
    permission = Permission.objects.using(alias).get(
        content_type__app_label="matches", codename="view_matchanalysis")
    for group in Group.objects.using(alias).filter(name="Referees"):
        group.permissions.add(permission)


def disallow(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    alias = schema_editor.connection.alias
    for group in Group.objects.using(alias).filter(name="Referees"):
        group.permissions.remove(*Permission.objects.using(alias).filter(
            content_type__app_label="matches", codename="view_matchanalysis"))


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0007_referees_moderate_chat"),
    ]

    operations = [
        migrations.RunPython(allow, disallow),
    ]
