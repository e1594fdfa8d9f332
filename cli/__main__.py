from .main import console_script

console_script()
