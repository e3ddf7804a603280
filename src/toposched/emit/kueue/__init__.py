"""emit/kueue"""
