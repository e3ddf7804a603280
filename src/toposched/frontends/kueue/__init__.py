"""frontends/kueue"""
